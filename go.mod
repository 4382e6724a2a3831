module github.com/humchess/humchess

go 1.26

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/notnil/chess v1.10.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
