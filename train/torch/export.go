package torch

import (
	"io"

	"github.com/humchess/humchess/nets/transformer"
)

// Export writes the weights of a checkpoint as the safetensors file
// nets/transformer reads (to safetensorsPath, when not empty) and as the
// ONNX net the engine loads (to onnxPath, when not empty), both atomically.
func Export(checkpointPath, safetensorsPath, onnxPath string) (transformer.Arch, error) {
	ck, err := LoadCheckpoint(checkpointPath)
	if err != nil {
		return transformer.Arch{}, err
	}
	if safetensorsPath != "" {
		if err := transformer.SaveSafetensors(safetensorsPath, ck.Arch, ck.Weights); err != nil {
			return ck.Arch, err
		}
	}
	if onnxPath != "" {
		model, err := transformer.BuildONNX(ck.Arch, ck.Weights)
		if err != nil {
			return ck.Arch, err
		}
		err = transformer.WriteFileAtomic(onnxPath, func(w io.Writer) error {
			_, err := w.Write(model)
			return err
		})
		if err != nil {
			return ck.Arch, err
		}
	}
	return ck.Arch, nil
}
