module github.com/humchess/humchess/train/torch

go 1.26

require (
	github.com/humchess/humchess v0.0.0
	github.com/sugarme/gotch v0.9.1
)

replace github.com/humchess/humchess => ../..

replace github.com/sugarme/gotch => ../../build/gotch
