module github.com/humchess/humchess/cmd/humchess-train

go 1.26

require (
	github.com/humchess/humchess v0.0.0
	github.com/humchess/humchess/train/torch v0.0.0
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/notnil/chess v1.10.0 // indirect
	github.com/sugarme/gotch v0.9.1 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace github.com/humchess/humchess => ../..

replace github.com/humchess/humchess/train/torch => ../../train/torch

// build/gotch is gotch v0.9.1 patched for the local libtorch; `make gotch`
// (scripts/patch-gotch.sh) makes it. Until then go build, go test and editors
// fail here with "replacement directory ../../build/gotch does not exist".
replace github.com/sugarme/gotch => ../../build/gotch
