package lc0

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"google.golang.org/protobuf/encoding/protowire"
)

// synthSpec describes a small random network written in Lc0's file format,
// to test the parser and the less common heads without shipping more nets.
type synthSpec struct {
	filters, blocks int
	se              bool
	convPolicy      bool // convolutional policy head (else classical)
	wdl             bool // WDL value head (else classical tanh)
	noGammaBeta     bool // old files: batch norm without gammas and betas
	seed            uint64
}

type synthWriter struct {
	rng  *rand.Rand
	spec synthSpec
}

func appendMsg(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// layer writes n random LINEAR16 values in [lo, hi].
func (s *synthWriter) layer(n int, lo, hi float32) []byte {
	var b []byte
	b = protowire.AppendTag(b, fLayerMin, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, math.Float32bits(lo))
	b = protowire.AppendTag(b, fLayerMax, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, math.Float32bits(hi))
	p := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(p[2*i:], uint16(s.rng.IntN(65536)))
	}
	return appendMsg(b, fLayerParams, p)
}

// conv writes a ConvBlock: with batch norm when bn, else with biases.
func (s *synthWriter) conv(out, in, k int, bn bool) []byte {
	scale := float32(1.5 / math.Sqrt(float64(in*k*k)))
	var b []byte
	b = appendMsg(b, fConvWeights, s.layer(out*in*k*k, -scale, scale))
	if !bn {
		return appendMsg(b, fConvBiases, s.layer(out, -0.1, 0.1))
	}
	b = appendMsg(b, fConvBNMeans, s.layer(out, -0.2, 0.2))
	b = appendMsg(b, fConvBNStddiv, s.layer(out, 0.5, 2))
	if !s.spec.noGammaBeta {
		b = appendMsg(b, fConvBNGammas, s.layer(out, 0.5, 1.5))
		b = appendMsg(b, fConvBNBetas, s.layer(out, -0.1, 0.1))
	}
	return b
}

func (s *synthWriter) dense(wNum, bNum protowire.Number, out, in int) []byte {
	scale := float32(1.5 / math.Sqrt(float64(in)))
	var b []byte
	b = appendMsg(b, wNum, s.layer(out*in, -scale, scale))
	return appendMsg(b, bNum, s.layer(out, -0.1, 0.1))
}

// synthNet returns the (uncompressed) bytes of a random network.
func synthNet(spec synthSpec) []byte {
	s := &synthWriter{rng: rand.New(rand.NewPCG(spec.seed, 7)), spec: spec}
	f := spec.filters
	var w []byte
	w = appendMsg(w, fWInput, s.conv(f, InputPlanes, 3, true))
	for i := 0; i < spec.blocks; i++ {
		var r []byte
		r = appendMsg(r, fResConv1, s.conv(f, f, 3, true))
		r = appendMsg(r, fResConv2, s.conv(f, f, 3, true))
		if spec.se {
			h := max(f/4, 1)
			var se []byte
			se = append(se, s.dense(fSEW1, fSEB1, h, f)...)
			se = append(se, s.dense(fSEW2, fSEB2, 2*f, h)...)
			r = appendMsg(r, fResSE, se)
		}
		w = appendMsg(w, fWResidual, r)
	}
	if spec.convPolicy {
		w = appendMsg(w, fWPolicy1, s.conv(f, f, 3, true))
		w = appendMsg(w, fWPolicy, s.conv(80, f, 3, false))
	} else {
		w = appendMsg(w, fWPolicy, s.conv(4, f, 1, true))
		w = append(w, s.dense(fWIPPolW, fWIPPolB, NumMoves, 4*64)...)
	}
	w = appendMsg(w, fWValue, s.conv(2, f, 1, true))
	w = append(w, s.dense(fWIP1ValW, fWIP1ValB, 16, 2*64)...)
	outs := 1
	if spec.wdl {
		outs = 3
	}
	w = append(w, s.dense(fWIP2ValW, fWIP2ValB, outs, 16)...)

	var nf []byte
	nf = appendVarintField(nf, fNFInput, uint64(InputClassical112))
	out, val, pol, netw := OutputClassical, ValueClassical, PolicyClassical, NetworkClassicalWithHeadFmt
	if spec.wdl {
		out, val = OutputWDL, ValueWDL
	}
	if spec.convPolicy {
		pol = PolicyConvolution
	}
	if spec.se {
		netw = NetworkSEWithHeadFmt
	}
	nf = appendVarintField(nf, fNFOutput, uint64(out))
	nf = appendVarintField(nf, fNFNetwork, uint64(netw))
	nf = appendVarintField(nf, fNFPolicy, uint64(pol))
	nf = appendVarintField(nf, fNFValue, uint64(val))
	var format []byte
	format = appendVarintField(format, fFormatEncoding, encodingLinear16)
	format = appendMsg(format, fFormatNetworkFormat, nf)

	var b []byte
	b = protowire.AppendTag(b, fNetMagic, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, netMagic)
	b = appendMsg(b, fNetLicense, []byte("test"))
	b = appendMsg(b, fNetFormat, format)
	return appendMsg(b, fNetWeights, w)
}
