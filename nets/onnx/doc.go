// Package onnx writes ONNX models from Go and reads back what a model file
// declares about itself.
//
// Writing: a small graph builder (NewGraph, Graph.Input, Graph.Initializer,
// Graph.Node and one helper per operator a transformer or a ResNet needs)
// collects nodes, initializers and typed inputs/outputs; Model.Marshal encodes
// the ModelProto by hand with protowire (no generated code, no protoc). The
// builder is sticky on errors: the first mistake (an unknown value name, a
// duplicate input, data that does not fit its dims) is remembered and returned
// by Graph.Err and Model.Marshal, so graph code reads as a plain chain of calls.
//
// Reading: ReadMetadata and ReadInfo decode only the fields a loader needs
// (metadata_props, opsets, the graph's inputs and outputs). They return
// ErrNotONNX or ErrCorrupt, never panic, on any byte string.
//
// This package must not know ONNX Runtime or chess: it only speaks the file
// format.
package onnx
