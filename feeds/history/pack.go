package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// The store keeps bars and answers in day blocks: one row per source, symbol and UTC day holds
// that day's bars, and one row per symbol and day its answers with their quotes, each packed
// into a compact blob. A year of three symbols from three sources is about 1.9M bars, 0.7M
// answers and 2.2M quotes; as rows, SQLite spent 1.5–2.4 µs inside the engine on each of them
// (BENCHMARKS.md), more than the whole ingest budget. As day blocks the same year is a few
// thousand rows, and packing and unpacking them is a small cost in Go.
//
// A block is a format byte, then varints: times as deltas from the day's start or the record
// before, prices as zigzag deltas, and texts (sources, statuses, reasons, errors, error kinds) as
// indexes into the block's own table of strings. Both databases store the same bytes (BLOB,
// BYTEA).
//
// Answers blocks come in two formats, and the reader takes both: stores written before quotes
// kept their error kind hold format 1 blocks, and a block is only rewritten when its day is
// reconciled again. Format 2 (packAnswersKinds, all the writer writes) differs in one field of
// each quote: where format 1 has the error's string index e, format 2 has e<<1, with the low
// bit set when the index of the quote's sources.ErrorKind follows. A quote without a kind (every
// priced one) takes the room it did while its error's index is under 64 (one byte); a format 1
// quote reads back with no kind.

const (
	packBars         = 1 // format byte of a bars block without fetch times (before the ledger)
	packBarsLedger   = 2 // format byte of a bars block with each bar's fetch time and finality
	packAnswers      = 1 // format byte of an answers block whose quotes have no error kind
	packAnswersKinds = 2 // format byte of an answers block whose quotes keep their error kind
	daySeconds       = 86400
)

// DayOf is the UTC day (unix seconds of its midnight) holding the unix time t: the store keeps
// bars and answers in blocks of one such day, so a writer whose transactions end with whole days
// writes each block once.
func DayOf(t int64) int64 { return dayOf(t) }

// dayOf is DayOf.
func dayOf(t int64) int64 {
	d := t - t%daySeconds
	if t < 0 && t%daySeconds != 0 {
		d -= daySeconds
	}
	return d
}

var errCorrupt = errors.New("history: a day block is corrupt")

// packer appends varints to a buffer.
type packer struct{ b []byte }

func (p *packer) u(v uint64) { p.b = binary.AppendUvarint(p.b, v) }
func (p *packer) i(v int64)  { p.b = binary.AppendVarint(p.b, v) }

// unpacker reads them back; the first read past the end or of a malformed varint makes err
// errCorrupt and every later read zero.
type unpacker struct {
	b   []byte
	err error
}

func (u *unpacker) u() uint64 {
	if u.err != nil {
		return 0
	}
	v, n := binary.Uvarint(u.b)
	if n <= 0 {
		u.err = errCorrupt
		return 0
	}
	u.b = u.b[n:]
	return v
}

func (u *unpacker) i() int64 {
	if u.err != nil {
		return 0
	}
	v, n := binary.Varint(u.b)
	if n <= 0 {
		u.err = errCorrupt
		return 0
	}
	u.b = u.b[n:]
	return v
}

// count reads a length that must fit in what is left of the block (each element takes at
// least a byte), so a corrupt block cannot ask for a huge allocation.
func (u *unpacker) count() int {
	n := u.u()
	if n > uint64(len(u.b)) {
		u.err = errCorrupt
		return 0
	}
	return int(n)
}

// str reads a string's index and returns it from the block's table.
func (u *unpacker) str(strs []string) string { return u.at(strs, u.u()) }

// at is the string of index i in the block's table.
func (u *unpacker) at(strs []string, i uint64) string {
	if i >= uint64(len(strs)) {
		if u.err == nil {
			u.err = errCorrupt
		}
		return ""
	}
	return strs[i]
}

func (u *unpacker) text() string {
	n := u.count()
	if u.err != nil {
		return ""
	}
	s := string(u.b[:n])
	u.b = u.b[n:]
	return s
}

// Bars blocks come in two formats too, and the reader takes both. Format 1 (packBars) holds
// each bar's start, close and volume; stores written before the bar ledger hold it, and its bars
// read back final with no fetch time (a backfill stored final minutes). Format 2
// (packBarsLedger, all the writer writes) adds what the ledger keeps of each bar: the start's
// delta is doubled, its low bit set when the bar was provisional when fetched, and after the
// volume comes the fetch time as a zigzag delta from the bar before's (from 0 for the first):
// the bars of one request share it, so it costs a byte a bar.

// packBarDay packs one source's bars of one symbol and day, sorted by start (one bar a start).
func packBarDay(day int64, bars []feeds.HeldBar) []byte {
	p := packer{b: make([]byte, 0, 2+len(bars)*9)}
	p.b = append(p.b, packBarsLedger)
	p.u(uint64(len(bars)))
	prevT, prevC, prevF := day, int64(0), int64(0)
	for _, b := range bars {
		t, f := b.Start.Unix(), fetchedUnix(b.Fetched)
		step := uint64(t-prevT) << 1
		if !b.Final {
			step |= 1
		}
		p.u(step)
		p.i(int64(b.Close) - prevC)
		p.u(uint64(b.Volume))
		p.i(f - prevF)
		prevT, prevC, prevF = t, int64(b.Close), f
	}
	return p.b
}

// fetchedUnix is a fetch time as the store keeps it: unix seconds, 0 when unknown.
func fetchedUnix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// fetchedTime is fetchedUnix's inverse.
func fetchedTime(f int64) time.Time {
	if f == 0 {
		return time.Time{}
	}
	return unix(f)
}

// sortedBars orders bars by start, keeping the last of each start; it sorts a copy only when
// they are not already strictly ascending (the adapters' usual order).
func sortedBars(bars []feeds.HeldBar) []feeds.HeldBar {
	ordered := true
	for i := 1; i < len(bars); i++ {
		if !bars[i-1].Start.Before(bars[i].Start) {
			ordered = false
			break
		}
	}
	if ordered {
		return bars
	}
	s := slices.Clone(bars)
	slices.SortStableFunc(s, func(a, b feeds.HeldBar) int { return a.Start.Compare(b.Start) })
	out := s[:0]
	for i, b := range s {
		if i+1 < len(s) && s[i+1].Start.Equal(b.Start) {
			continue // a later bar of the same start wins
		}
		out = append(out, b)
	}
	return out
}

// unpackBarDay appends a block's bars to dst.
func unpackBarDay(dst []feeds.HeldBar, day int64, blob []byte) ([]feeds.HeldBar, error) {
	if len(blob) == 0 || (blob[0] != packBars && blob[0] != packBarsLedger) {
		return dst, fmt.Errorf("%w (bars format %v)", errCorrupt, blob[:min(len(blob), 1)])
	}
	ledger := blob[0] == packBarsLedger
	u := unpacker{b: blob[1:]}
	n := u.count()
	dst = slices.Grow(dst, n)
	t, c, f := day, int64(0), int64(0)
	for range n {
		step, final := u.u(), true
		if ledger {
			step, final = step>>1, step&1 == 0
		}
		t += int64(step)
		c += u.i()
		v := u.u()
		if ledger {
			f += u.i()
		}
		if u.err != nil {
			return dst, u.err
		}
		dst = append(dst, feeds.HeldBar{Bar: sources.Bar{Start: unix(t), Close: numeric.Scaled(c), Volume: int64(v)}, Fetched: fetchedTime(f), Final: final})
	}
	return dst, u.err
}

// revision is a bar whose close a later fetch changed: the close held before and the one after,
// each as fetched. A bar that appeared after a fetch saw none has an old close of 0, one a later
// fetch no longer holds a new close of 0.
type revision struct{ old, new feeds.HeldBar }

// sight is one fetch's look at a source's minutes: the minutes of span that had ended when it
// was sent hold exactly the bars it returned. The zero sight (a backfill's page, which may stop
// short of its window) says nothing of a minute without a bar.
type sight struct {
	span             market.Span
	fetched, finalTo time.Time
}

// saw reports whether the fetch looked at the minute at start, and whether it was final then.
func (s sight) saw(start time.Time) (saw, final bool) {
	if s.fetched.IsZero() || start.Before(s.span.From) || !start.Before(s.span.To) || start.Add(time.Minute).After(s.fetched) {
		return false, false
	}
	return true, start.Before(s.finalTo)
}

// absentBar is the "bar" a fetch saw at a minute without one: close 0.
func absentBar(start time.Time, s sight) feeds.HeldBar {
	_, final := s.saw(start)
	return feeds.HeldBar{Bar: sources.Bar{Start: start}, Fetched: s.fetched, Final: final}
}

// mergeBars is the bars of old and add (each sorted, one bar a start), the one fetched later of
// each start kept (add's on a tie), with the starts whose close the two disagree on. seen is the
// fetch add comes from: an old bar it looked at and no longer returned is dropped (the later
// fetch wins) and is a revision to close 0; earlier are the fetches the store holds over add's
// minutes: a bar of add at a minute one of them looked at and found empty is a revision from 0.
func mergeBars(old, add []feeds.HeldBar, seen sight, earlier []sight) ([]feeds.HeldBar, []revision) {
	out := make([]feeds.HeldBar, 0, len(old)+len(add))
	var revised []revision
	i, j := 0, 0
	for i < len(old) || j < len(add) {
		switch {
		case j == len(add) || (i < len(old) && old[i].Start.Before(add[j].Start)):
			b := old[i]
			i++
			if saw, _ := seen.saw(b.Start); saw && b.Close > 0 && b.Fetched.Unix() < seen.fetched.Unix() {
				revised = append(revised, revision{old: b, new: absentBar(b.Start, seen)})
				continue
			}
			out = append(out, b)
		case i == len(old) || add[j].Start.Before(old[i].Start):
			b := add[j]
			j++
			for _, e := range earlier {
				if saw, _ := e.saw(b.Start); saw && b.Close > 0 && e.fetched.Unix() < b.Fetched.Unix() {
					revised = append(revised, revision{old: absentBar(b.Start, e), new: b})
					break
				}
			}
			out = append(out, b)
		default:
			a, b := old[i], add[j]
			if !feeds.Later(a.Fetched, b.Fetched) {
				a, b = b, a
			}
			if a.Close != b.Close {
				revised = append(revised, revision{old: a, new: b})
			}
			out = append(out, b)
			i, j = i+1, j+1
		}
	}
	return out, revised
}

// dayAnswer is one stored answer in a block: an Answer without its symbol, with its ruleset's
// id instead of its text and each quote's place in the spec.
type dayAnswer struct {
	minute    int64
	session   market.Session
	agreed    bool
	price     numeric.Scaled
	median    numeric.Scaled
	survivors int
	complete  bool
	reason    string
	ruleset   int64
	quotes    []dayQuote
}

type dayQuote struct {
	ord      int
	source   string
	status   feeds.Status
	price    numeric.Scaled
	bar      int64 // 0 without a price
	centibps int64
	err      string
	kind     sources.ErrorKind // of a failed request, "" otherwise (and in a format 1 block)
}

// strtab numbers a block's strings in the order they first appear.
type strtab struct {
	idx  map[string]uint64
	list []string
}

func (s *strtab) of(v string) uint64 {
	if i, ok := s.idx[v]; ok {
		return i
	}
	if s.idx == nil {
		s.idx = map[string]uint64{}
	}
	i := uint64(len(s.list))
	s.idx[v] = i
	s.list = append(s.list, v)
	return i
}

// packAnswerDay packs one symbol's answers of one day, sorted by minute (one answer a minute).
func packAnswerDay(day int64, answers []dayAnswer) []byte {
	var st strtab
	var body packer
	body.b = make([]byte, 0, len(answers)*40)
	prev, prevP := day, int64(0)
	for _, a := range answers {
		body.u(uint64(a.minute - prev))
		prev = a.minute
		var flags uint64
		if a.agreed {
			flags |= 1
		}
		if a.complete {
			flags |= 2
		}
		body.u(flags)
		body.u(st.of(string(a.session)))
		body.i(int64(a.price) - prevP)
		body.i(int64(a.median) - int64(a.price))
		prevP = int64(a.price)
		body.u(uint64(a.survivors))
		body.u(st.of(a.reason))
		body.u(uint64(a.ruleset))
		body.u(uint64(len(a.quotes)))
		for _, q := range a.quotes {
			body.u(uint64(q.ord))
			body.u(st.of(q.source))
			body.u(st.of(string(q.status)))
			body.i(int64(q.price))
			if q.bar == 0 {
				body.u(0)
			} else {
				d := a.minute - q.bar
				body.u(uint64(d<<1^d>>63) + 1) // zigzag, past the 0 of no bar
			}
			body.i(q.centibps)
			if q.kind == "" {
				body.u(st.of(q.err) << 1)
			} else {
				body.u(st.of(q.err)<<1 | 1)
				body.u(st.of(string(q.kind)))
			}
		}
	}
	p := packer{b: make([]byte, 0, len(body.b)+64)}
	p.b = append(p.b, packAnswersKinds)
	p.u(uint64(len(st.list)))
	for _, s := range st.list {
		p.u(uint64(len(s)))
		p.b = append(p.b, s...)
	}
	p.u(uint64(len(answers)))
	p.b = append(p.b, body.b...)
	return p.b
}

// unpackAnswerDay calls fn for each answer of a block of either format, in minute order. The
// quotes slice is the answer's own (capped at its length: appending to it copies), cut from an
// array shared by the day's answers, which spares an allocation per answer.
func unpackAnswerDay(day int64, blob []byte, fn func(dayAnswer) error) error {
	if len(blob) == 0 || (blob[0] != packAnswers && blob[0] != packAnswersKinds) {
		return fmt.Errorf("%w (answers format %v)", errCorrupt, blob[:min(len(blob), 1)])
	}
	kinds := blob[0] == packAnswersKinds
	u := unpacker{b: blob[1:]}
	strs := make([]string, u.count())
	for i := range strs {
		strs[i] = u.text()
	}
	n := u.count()
	m, prevP := day, int64(0)
	var free []dayQuote
	for i := range n {
		var a dayAnswer
		m += int64(u.u())
		a.minute = m
		flags := u.u()
		a.agreed, a.complete = flags&1 != 0, flags&2 != 0
		a.session = market.Session(u.str(strs))
		p := prevP + u.i()
		prevP = p
		a.price, a.median = numeric.Scaled(p), numeric.Scaled(p+u.i())
		a.survivors = int(u.u())
		a.reason = u.str(strs)
		a.ruleset = int64(u.u())
		nq := u.count()
		if free == nil || len(free) < nq {
			// room for the rest of the day if its answers have as many quotes as this one
			// (they usually do), never for more quotes than the block has bytes left
			free = make([]dayQuote, max(nq, min((n-i)*nq, len(u.b))))
		}
		a.quotes, free = free[:nq:nq], free[nq:]
		for j := range a.quotes {
			q := &a.quotes[j]
			q.ord = int(u.u())
			q.source = u.str(strs)
			q.status = feeds.Status(u.str(strs))
			q.price = numeric.Scaled(u.i())
			if d := u.u(); d > 0 {
				z := d - 1
				q.bar = m - (int64(z>>1) ^ -int64(z&1))
			}
			q.centibps = u.i()
			if !kinds {
				q.err = u.str(strs)
			} else if e := u.u(); e&1 == 0 {
				q.err = u.at(strs, e>>1)
			} else {
				q.err = u.at(strs, e>>1)
				q.kind = sources.ErrorKind(u.str(strs))
			}
		}
		if u.err != nil {
			return u.err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return u.err
}

// answer is the Answer a stored day answer is, with its ruleset's text.
func (a *dayAnswer) answer(symbol, rules string) Answer {
	out := Answer{
		Symbol: symbol, Minute: unix(a.minute), Session: a.session, Agreed: a.agreed, Price: a.price, Median: a.median,
		Survivors: a.survivors, Complete: a.complete, Reason: a.reason, Rules: rules, Quotes: make([]Quote, len(a.quotes)),
	}
	for i, q := range a.quotes {
		out.Quotes[i] = Quote{Source: q.source, Ord: q.ord, Status: q.status, Price: q.price, DistanceCentiBps: q.centibps, Err: q.err, Kind: q.kind}
		if q.bar != 0 {
			out.Quotes[i].BarTime = unix(q.bar)
		}
	}
	return out
}

// dayAnswerOf is the stored form of a reconciled minute.
func dayAnswerOf(r *AnswerRow, ruleset int64) dayAnswer {
	a := dayAnswer{
		minute: r.Minute.Unix(), session: r.Session, agreed: r.Result.Agreed, price: r.Result.Price, median: r.Result.Median,
		survivors: r.Result.Survivors, complete: r.Complete, reason: r.Reason, ruleset: ruleset,
		quotes: make([]dayQuote, len(r.Result.Quotes)),
	}
	for i, q := range r.Result.Quotes {
		dq := dayQuote{ord: r.Ords[i], source: q.Source, status: q.Status, price: q.Price, centibps: q.DistanceCentiBps, err: q.Err, kind: q.Kind}
		if q.Status.Priced() {
			dq.bar = q.BarTime.Unix()
		}
		a.quotes[i] = dq
	}
	return a
}
