// Package calibrate measures and fits what UCI_Elo means for a net
// (humchess calibrate): it plays HumChess against itself at each label on a
// virtual clock shaped like a human's (match.HumanCharge), judges every move
// with Stockfish at a fixed node count (train/tools/internal/profile), compares the
// error profile (blunder rate, average centipawn loss) with that of human
// players of the same band and time class, and adjusts the calibration
// (nets/calib: temperature and blunder-filter scale per label) for a few
// rounds. It then plays the spread matches (X against X-400), the reference
// matches (Maia-X through the engine's own Maia path, Stockfish with
// UCI_LimitStrength), times the blunder filter, and prints the tables,
// writes PNGs and the calibration file. Points are fitted for the time
// class of the games played; from a start file whose base points are of
// another class, they are written as that class's points (Merge), so one
// file carries a net's points for blitz, rapid and bullet.
//
// It is the one tool that drives another (train/tools/match); it knows nets
// only through the engine's options (NetFile, UCI_Elo, ...) and the
// calibration file format, never how a net is built or evaluated.
package calibrate
