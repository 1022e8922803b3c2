package domain

import (
	"fmt"
	"math"
	"time"
)

// SortOrder says which end of a board ranks first.
type SortOrder string

const (
	// SortDesc ranks the highest points first (ZREVRANGE): the default, and the articles'.
	SortDesc SortOrder = "desc"
	// SortAsc ranks the lowest points first (ZRANGE), e.g. times in milliseconds. With a
	// timed tie-break the score's time part is reversed (see TieBreak.EncodeFor), so among
	// equal points the first to reach them still ranks first.
	SortAsc SortOrder = "asc"
)

// SortOrders lists the orders in the order the settings form offers them.
var SortOrders = []SortOrder{SortDesc, SortAsc}

// Valid says whether o is one of the orders.
func (o SortOrder) Valid() bool { return o == SortDesc || o == SortAsc }

// Ascending says whether the lowest points rank first.
func (o SortOrder) Ascending() bool { return o == SortAsc }

// Better says whether points a rank above points b on a board of this order.
func (o SortOrder) Better(a, b int64) bool {
	if o.Ascending() {
		return a < b
	}
	return a > b
}

// Operator says what a write of points does to a player's points.
type Operator string

const (
	// OperatorIncr adds the points to the player's (the default: points add up).
	OperatorIncr Operator = "incr"
	// OperatorBest keeps the better of the player's points and the points submitted: the
	// higher on a desc board, the lower on an asc board. An equal submission keeps the
	// player's score as it is, so on a timed board the first to reach the best ranks first.
	OperatorBest Operator = "best"
	// OperatorSet keeps the points submitted last (an equal submission keeps the time the
	// points were first reached).
	OperatorSet Operator = "set"
)

// Operators lists the operators in the order the settings form offers them.
var Operators = []Operator{OperatorIncr, OperatorBest, OperatorSet}

// Valid says whether op is one of the operators.
func (op Operator) Valid() bool { return op == OperatorIncr || op == OperatorBest || op == OperatorSet }

// Submits says whether a write is a score submitted (best, set) rather than points added.
func (op Operator) Submits() bool { return op == OperatorBest || op == OperatorSet }

// Ranking is how a board's sorted set reads: its scores' encoding and its order. It is a
// Scores, so the reads by key (which take a Scores) rank in its order; see OrderOf.
type Ranking struct {
	Scores Scores
	Order  SortOrder
}

// Points reads a score's points through the ranking's encoding.
func (r Ranking) Points(score float64) int64 { return r.Scores.Points(score) }

// SortOrder is the ranking's order.
func (r Ranking) SortOrder() SortOrder { return r.Order }

// OrderOf is the order of a board read with s: a Ranking's (or anything that says its
// SortOrder), else SortDesc.
func OrderOf(s Scores) SortOrder {
	if o, ok := s.(interface{ SortOrder() SortOrder }); ok && o.SortOrder().Valid() {
		return o.SortOrder()
	}
	return SortDesc
}

// Ranking is the board's ranking: its encoding in its order.
func (s BoardSettings) Ranking() Ranking { return Ranking{Scores: s.TieBreak, Order: s.Order()} }

// Order is the board's order, SortDesc when unset.
func (s BoardSettings) Order() SortOrder {
	if s.SortOrder.Valid() {
		return s.SortOrder
	}
	return SortDesc
}

// Op is the board's operator, OperatorIncr when unset.
func (s BoardSettings) Op() Operator {
	if s.Operator.Valid() {
		return s.Operator
	}
	return OperatorIncr
}

// RankingText says a board's order and operator in plain words: "Lower is better · best
// time kept".
func RankingText(o SortOrder, op Operator) string {
	text := "Higher is better"
	if o.Ascending() {
		text = "Lower is better"
	}
	switch op {
	case OperatorBest:
		if o.Ascending() {
			return text + " · best time kept"
		}
		return text + " · best score kept"
	case OperatorSet:
		return text + " · latest score kept"
	}
	return text + " · points add up"
}

// RankingChange says, for a confirmation, what changing a board's order or operator does to
// the scores it already holds. "" when neither changes.
func RankingChange(from, to BoardSettings, players int64) string {
	var parts []string
	if from.Order() != to.Order() {
		what := "lowest first"
		if !to.Order().Ascending() {
			what = "highest first"
		}
		parts = append(parts, fmt.Sprintf("its %s players will rank %s, so the top becomes the bottom (scores are not rewritten; on a first-to-reach board, equal scores written before the change rank by their time the other way round until written again)", FormatCount(players), what))
	}
	if from.Op() != to.Op() {
		var what string
		switch to.Op() {
		case OperatorIncr:
			what = "points sent from now on add to each player's score"
		case OperatorBest:
			what = "a score sent from now on replaces a player's only when it is better"
		default:
			what = "a score sent from now on replaces a player's"
		}
		parts = append(parts, fmt.Sprintf("%s (the scores held stay as they are)", what))
	}
	if len(parts) == 0 {
		return ""
	}
	out := parts[0]
	if len(parts) == 2 {
		out += "; and " + parts[1]
	}
	return out
}

// EncodeFor is Encode on a board of order o: on an ascending board a timed encoding's time
// part is reversed (the earlier the time, the lower the score), so that ZRANGE ranks the
// first to reach equal points first:
//
//	first_reached       points + ms/1e13
//	first_reached_e10   points × 10^10 + ts
//	first_reached_wide  points + s/2^30
//
// The points read back (Points) as on a descending board.
func (t TieBreak) EncodeFor(o SortOrder, points int64, at time.Time) (float64, error) {
	score, err := t.Encode(points, at)
	if err != nil || !o.Ascending() {
		return score, err
	}
	switch t {
	case TieBreakFirstReached:
		return float64(points) + float64(at.UnixMilli())/1e13, nil
	case TieBreakFirstReachedE10:
		return float64(points*E10Scale + at.Unix()), nil
	case TieBreakFirstReachedWide:
		return float64(points) + float64(at.Unix()-wideEpochUnix)/WideSlots, nil
	}
	return score, nil
}

// TimeFor is Time on a board of order o (see EncodeFor).
func (t TieBreak) TimeFor(o SortOrder, score float64, now time.Time) (time.Time, bool) {
	if !o.Ascending() || !t.Timed() {
		return t.Time(score, now)
	}
	return t.Time(mirror(t, score), now)
}

// mirror maps an ascending board's score to the descending score of the same points and time
// (and back: it is its own inverse).
func mirror(t TieBreak, score float64) float64 {
	if math.IsNaN(score) || math.IsInf(score, 0) || math.Abs(score) > MaxSafeScore {
		return score
	}
	floor := math.Floor(score)
	frac := score - floor
	switch t {
	case TieBreakFirstReached:
		if frac == 0 {
			return score
		}
		return floor + (1 - frac)
	case TieBreakFirstReachedWide:
		if frac == 0 {
			return score
		}
		return floor + (WideSlots-1-math.Round(frac*WideSlots))/WideSlots
	case TieBreakFirstReachedE10:
		p := t.Points(score)
		low := int64(score) - p*E10Scale
		return float64(p*E10Scale + (E10MaxTS - low))
	}
	return score
}

// FitsFor is Fits on a board of order o.
func (t TieBreak) FitsFor(o SortOrder, score float64, now time.Time) bool {
	if t == TieBreakNone {
		return t.Fits(score, now)
	}
	_, ok := t.TimeFor(o, score, now)
	return ok
}

// ValidateRankingPatch checks a patch's order and operator as sent: "" is no value either.
// Returns EINVALID naming the field.
func ValidateRankingPatch(p BoardSettingsPatch) error {
	if p.SortOrder != nil && !p.SortOrder.Valid() {
		return FieldErrorf("sort_order", EINVALID, `sort_order must be "desc" or "asc" (got %q)`, clip(string(*p.SortOrder)))
	}
	if p.Operator != nil && !p.Operator.Valid() {
		return FieldErrorf("operator", EINVALID, `operator must be "incr", "best" or "set" (got %q)`, clip(string(*p.Operator)))
	}
	return nil
}
