package torch

import "errors"

var (
	// ErrConfig reports a setting out of range or a bad preset or config file.
	ErrConfig = errors.New("torch: bad configuration")
	// ErrCheckpoint reports a checkpoint that cannot be read or does not fit the model.
	ErrCheckpoint = errors.New("torch: bad checkpoint")
	// ErrData reports a shard record that cannot be decoded or does not fit the contract.
	ErrData = errors.New("torch: bad training data")
	// ErrTorch reports a libtorch failure (an op that failed or is not available).
	ErrTorch = errors.New("torch: libtorch error")
	// ErrStopped is returned by Run when a hook asked to stop without saving.
	ErrStopped = errors.New("torch: run stopped by hook")
)
