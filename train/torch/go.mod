module github.com/humchess/humchess/train/torch

go 1.26

require (
	github.com/humchess/humchess v0.0.0
	github.com/sugarme/gotch v0.9.1
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/notnil/chess v1.10.0 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace github.com/humchess/humchess => ../..

replace github.com/sugarme/gotch => ../../build/gotch
