module github.com/humchess/humchess/train/torch

go 1.26

require (
	github.com/humchess/humchess v0.0.0
	github.com/stretchr/testify v1.11.1
	github.com/sugarme/gotch v0.9.1
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/notnil/chess v1.10.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/humchess/humchess => ../..

// build/gotch is gotch v0.9.1 patched for the local libtorch; `make gotch`
// (scripts/patch-gotch.sh) makes it. Until then go build, go test and editors
// fail here with "replacement directory ../../build/gotch does not exist".
replace github.com/sugarme/gotch => ../../build/gotch
