// Package score converts between an evaluation in centipawns and the
// expected score (win 1, draw 1/2) of the side it is for, with the logistic
// model lichess uses for its accuracy figures. It is the one definition the
// UCI protocol ("info score cp" from a net's win/draw/loss) and the stats
// tool (a blunder is a loss of expected score) share. It imports nothing
// but math and must not know positions or nets.
package score

import "math"

// Logistic is the slope of the model: E = 1 / (1 + exp(-Logistic*cp)).
const Logistic = 0.00368208 // per centipawn

// Expected returns the expected score of a side whose evaluation is cp
// centipawns (its own view).
func Expected(cp float64) float64 { return 1 / (1 + math.Exp(-Logistic*cp)) }

// Centipawns returns the evaluation whose expected score is e (0 < e < 1):
// ln(e/(1-e)) / Logistic, the inverse of Expected.
func Centipawns(e float64) float64 { return math.Log(e/(1-e)) / Logistic }
