package onnx

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers from onnx/onnx.proto.
const (
	// ModelProto.
	fModelIRVersion       = 1
	fModelProducerName    = 2
	fModelProducerVersion = 3
	fModelDomain          = 4
	fModelModelVersion    = 5
	fModelDocString       = 6
	fModelGraph           = 7
	fModelOpsetImport     = 8
	fModelMetadataProps   = 14

	// OperatorSetIdProto.
	fOpsetDomain  = 1
	fOpsetVersion = 2

	// StringStringEntryProto.
	fEntryKey   = 1
	fEntryValue = 2

	// GraphProto.
	fGraphNode        = 1
	fGraphName        = 2
	fGraphInitializer = 5
	fGraphDocString   = 10
	fGraphInput       = 11
	fGraphOutput      = 12

	// NodeProto.
	fNodeInput     = 1
	fNodeOutput    = 2
	fNodeName      = 3
	fNodeOpType    = 4
	fNodeAttribute = 5
	fNodeDomain    = 7

	// AttributeProto.
	fAttrName    = 1
	fAttrF       = 2
	fAttrI       = 3
	fAttrS       = 4
	fAttrT       = 5
	fAttrFloats  = 7
	fAttrInts    = 8
	fAttrStrings = 9
	fAttrType    = 20

	// TensorProto.
	fTensorDims     = 1
	fTensorDataType = 2
	fTensorName     = 8
	fTensorRawData  = 9

	// ValueInfoProto.
	fValueName = 1
	fValueType = 2

	// TypeProto and TypeProto.Tensor.
	fTypeTensor      = 1
	fTensorTypeElem  = 1
	fTensorTypeShape = 2
	fShapeDim        = 1
	fDimValue        = 1
	fDimParam        = 2
)

// AttributeProto.AttributeType values.
const (
	attrFloat   = 1
	attrInt     = 2
	attrString  = 3
	attrTensor  = 4
	attrFloats  = 6
	attrInts    = 7
	attrStrings = 8
)

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendMessage appends a length-delimited sub-message built by fn.
func appendMessage(b []byte, num protowire.Number, fn func([]byte) []byte) []byte {
	return appendBytes(b, num, fn(nil))
}

// appendPackedInt64 appends a packed repeated int64 field.
func appendPackedInt64(b []byte, num protowire.Number, vs []int64) []byte {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return appendBytes(b, num, p)
}

// appendPackedFloat appends a packed repeated float field.
func appendPackedFloat(b []byte, num protowire.Number, vs []float32) []byte {
	p := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		p = protowire.AppendFixed32(p, math.Float32bits(v))
	}
	return appendBytes(b, num, p)
}

func f32bits(v float32) uint32 { return math.Float32bits(v) }
