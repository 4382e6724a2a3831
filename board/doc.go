// Package board owns chess positions and the HumChess encoding contract.
//
// It owns:
//
//   - Game: a position plus its history (moves played, position hashes for
//     the repetition count), with a strict FEN parser (NewGame), UCI and SAN
//     move input (Play, PlaySAN), legal moves from its own allocation-free
//     generator, Status (checkmate, stalemate, threefold, fifty-move,
//     insufficient material), cheap Clone, and Perft. github.com/notnil/chess
//     is the reference underneath: it cross-checks the FENs NewGame accepts,
//     and the tests require the same legal moves, in the same order, and
//     the same FENs as notnil on the perft positions and on real games.
//   - Move, Square, Piece: small value types; Move.String is UCI.
//   - The move vocabulary of NumMoves = 1858 entries in the mover's frame
//     (MoveToIndex, IndexToMove, Game.LegalIndices, Game.LegalMask).
//   - The encoding contract, versioned by ContractVersion: Context (ratings,
//     time control, clocks), Encoded (the raw facts of a position, with a
//     fixed binary form stored in shards), Targets (what the net learns),
//     think-time bins (ThinkBinEdges, ThinkBin, ThinkSpent), RatingAnchors,
//     and Contract, whose Fill turns an Encoded into the net's input tensors
//     for both training and play.
//   - The one mapping from a game to a Context (GameInfo.Context: whose move
//     it is, both ratings, both clocks, the time control), shared by
//     training, evaluation and play; Record states a game record's ratings,
//     time control and per-move clocks as a GameInfo.
//
// Everything a net sees is from the side to move's point of view: when Black
// is to move, ranks are mirrored (square s -> s^56) and colours swapped;
// files are kept. Squares are numbered a1=0 .. h8=63.
//
// It must not know about files, shards, nets or ONNX: other packages build on
// it (train/data/prep writes Encoded and Targets, nets read Contract.Fill's
// tensors, policy plays Games), never the other way round.
package board
