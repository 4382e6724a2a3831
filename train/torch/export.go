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
	return ck.Arch, ExportCheckpoint(ck, safetensorsPath, onnxPath)
}

// ExportCheckpoint is Export for a checkpoint in memory.
func ExportCheckpoint(ck *Checkpoint, safetensorsPath, onnxPath string) error {
	if safetensorsPath != "" {
		if err := transformer.SaveSafetensors(safetensorsPath, ck.Arch, ck.Weights); err != nil {
			return err
		}
	}
	if onnxPath != "" {
		model, err := transformer.BuildONNX(ck.Arch, ck.Weights)
		if err != nil {
			return err
		}
		return transformer.WriteFileAtomic(onnxPath, func(w io.Writer) error {
			_, err := w.Write(model)
			return err
		})
	}
	return nil
}
