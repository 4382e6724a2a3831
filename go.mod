module github.com/humchess/humchess

go 1.26

require (
	github.com/klauspost/compress v1.20.3
	github.com/notnil/chess v1.10.0
	github.com/stretchr/testify v1.11.1
	github.com/yalue/onnxruntime_go v1.27.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
