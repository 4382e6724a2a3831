// Package transformer is the HumChess transformer: its architecture (Arch),
// its weights in safetensors files, a pure-Go reference forward pass (Model),
// its ONNX graph (BuildONNX) and a nets.Net running that graph on ONNX
// Runtime (Net).
//
// The model and its weight names are fixed in docs/ARCHITECTURE.md, which the
// gotch trainer (train/torch) mirrors exactly:
//
//   - Arch is stored as JSON with snake_case keys: layers, dim, heads, ffn_dim,
//     policy_dim, smolgen, smolgen_compress, smolgen_hidden, square_dim,
//     global_dim, contract_version, contract_derived, norm_eps. Presets Tiny
//     (tests), Default (about 5.5M parameters) and Large take their input
//     sizes and contract from a board.Contract.
//   - Weights are float32 tensors keyed by the names Arch.Tensors lists, with
//     torch Linear shapes [out,in]. In a safetensors file every tensor is F32
//     with exactly that shape, the data buffer is covered without holes, and
//     `__metadata__` holds {"arch": Arch JSON}. ReadSafetensors refuses
//     anything else with an error wrapping ErrTruncated, ErrCorrupt, ErrArch or
//     ErrWeights; it never panics.
//   - Model.Forward computes the five outputs (move [B,1858], wdl [B,3],
//     time [B,8], from [B,64], to [B,64], all logits) with float64
//     accumulation. The move head's entry i is M[from,to] (+ U[to,piece] for
//     an underpromotion), with (from,to,piece) = board.IndexToMove(i, true):
//     the net sees the mover's frame.
//   - BuildONNX writes the same computation as an ONNX model (opset 23,
//     whose Attention op takes the smolgen bias; dynamic batch, weights as
//     initializers) with the metadata_props of
//     docs/ARCHITECTURE.md; the sha256 is that of the canonical safetensors
//     bytes (WeightsSHA256). ConvertSafetensorsToONNX does file to file.
//   - Open/OpenFile check a model's metadata (a net made for another
//     board.ContractVersion is refused with nets.ErrContractMismatch naming
//     both versions), encode inputs with board.Encode and the net's own
//     Contract.Fill, run ONNX Runtime and gather each legal move's logit with
//     board.MoveToIndex. Where ONNX Runtime is unavailable (no library, a
//     build without cgo) or with BackendGo, Net runs Model.Forward on the
//     weights read back from the ONNX initializers (WeightsFromONNX, checked
//     against the model's sha256). A model written before opset 23 (nets
//     exported by earlier versions) is rebuilt from its weights when it is
//     opened for ONNX Runtime, so it runs the faster graph too.
//
// The golden files testdata/transformer/micro.safetensors and
// micro_golden.json (inputs and Model.Forward outputs) pin the format and the
// forward pass; regenerate them with
// `go test ./nets/transformer -run TestGolden -update`.
// testdata/transformer/tiny-opset18.onnx is a model of the older graph
// (opset 18), written before the change; it cannot be regenerated.
//
// This package must not know training: it reads weights, it never learns them.
package transformer
