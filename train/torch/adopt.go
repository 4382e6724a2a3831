package torch

import (
	"fmt"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
)

// Adopt returns the checkpoint of a run continued from an exported net: the
// run's checkpoint ck (its configuration, data position and step) with the
// net's weights in place of its own, as if the run had gone on for steps more
// steps and produced that net. It is for a run whose later checkpoint is lost
// while a net exported from it survives.
//
// The net's architecture must be ck's, or ck's made deeper by Grow (the net
// was grown from ck's run: ck is grown first). The step and the positions
// seen advance by steps, and the data position by the records those steps
// read (steps × batch × accum records of the training split of set, read
// through the same shuffle), so the run goes on with the data that followed
// the net. AdamW's moments are not in an export: they start at zero, with
// AdamW's step count at zero so that its bias correction treats them as
// new. The learning-rate cycle ends at the new step, so
// `train -resume -end-at N` continues with a warm restart (its warm-up
// covers the fresh moments). set must be the shard set the run read (the
// checkpoint's DataID), or the data position would move on another set's
// records.
func Adopt(ck *Checkpoint, a transformer.Arch, w transformer.Weights, steps int, set *shard.Set) (*Checkpoint, error) {
	if steps < 0 {
		return nil, fmt.Errorf("%w: adopt: steps %d < 0", ErrConfig, steps)
	}
	if err := w.Check(a); err != nil {
		return nil, err
	}
	if a.Layers > ck.Arch.Layers && len(ck.M) > 0 {
		g, err := Grow(ck, a.Layers-ck.Arch.Layers)
		if err != nil {
			return nil, err
		}
		ck = g
	}
	if a.JSON() != ck.Arch.JSON() {
		return nil, fmt.Errorf("%w: the net's architecture %s is not the run's %s (nor the run's grown)", ErrCheckpoint, a.JSON(), ck.Arch.JSON())
	}
	st := ck.State
	cfg := st.Config
	records := steps * cfg.BatchSize * max(cfg.Accum, 1)
	if steps > 0 {
		if id := DataID(set, cfg.TrainSplit); st.ReadsOther(id) {
			return nil, fmt.Errorf("%w: adopt: the run's data position belongs to shard set %s, and the train split of the given set is %s: give the set the run read", ErrConfig, st.Data, id)
		}
		pos := st.Position
		src, err := OpenShardSource(set, cfg.TrainSplit, cfg.ShuffleBuffer, cfg.Seed, &pos)
		if err != nil {
			return nil, err
		}
		var ex Example
		for i := 0; i < records; i++ {
			if err := src.Next(&ex); err != nil {
				src.Close()
				return nil, err
			}
		}
		st.Position = src.Position()
		src.Close()
	}
	st.Step += steps
	st.Samples += int64(records)
	st.AdamStep = 0
	st.BestVal, st.ValLoss = nil, nil
	cfg.Arch = a
	if steps > 0 {
		cfg.Steps = st.Step // the cycle ends here: -end-at starts a new one
	}
	st.Config = cfg
	zeros := func() transformer.Weights {
		out := transformer.Weights{}
		for _, t := range a.Tensors() {
			out[t.Name] = make([]float32, t.Size())
		}
		return out
	}
	return &Checkpoint{Arch: a, Weights: w, M: zeros(), V: zeros(), State: st}, nil
}
