package adaptertest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// CheckParsed checks a parser's answer to one body. With kind set it must be an *sources.Error
// of that kind whose text holds msg; otherwise there is no error and the bars are exactly want,
// each starting in UTC, an empty window being an empty slice rather than nil.
func CheckParsed(t testing.TB, got []sources.Bar, err error, want []sources.Bar, kind error, msg string) {
	t.Helper()
	if kind != nil {
		checkKind(t, err, kind)
		if !strings.Contains(err.Error(), msg) {
			t.Fatalf("error %q, want it to say %q", err, msg)
		}
		return
	}
	checkParsedBars(t, got, err)
	if len(got) != len(want) {
		t.Fatalf("bars =\n%v\nwant\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bar %d = %+v, want %+v\nbars =\n%v", i, got[i], want[i], got)
		}
	}
}

// CheckCloses is CheckParsed for a table that pins only the closes of the bars, in order.
func CheckCloses(t testing.TB, got []sources.Bar, err error, kind error, closes []numeric.Scaled) {
	t.Helper()
	if kind != nil {
		checkKind(t, err, kind)
		return
	}
	checkParsedBars(t, got, err)
	var have []numeric.Scaled
	for _, b := range got {
		have = append(have, b.Close)
	}
	if fmt.Sprint(have) != fmt.Sprint(closes) {
		t.Errorf("closes %v, want %v", have, closes)
	}
}

func checkKind(t testing.TB, err, kind error) {
	t.Helper()
	var e *sources.Error
	if !errors.As(err, &e) || !errors.Is(err, kind) {
		t.Fatalf("error %v, want an *sources.Error of kind %v", err, kind)
	}
}

func checkParsedBars(t testing.TB, got []sources.Bar, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("error %v", err)
	}
	if got == nil {
		t.Fatal("nil slice; want an empty one for no bars")
	}
	for _, b := range got {
		if b.Start.Location() != time.UTC {
			t.Fatalf("bar start %v is not in UTC", b.Start)
		}
	}
}

// Fuzzed checks what a parser of outside bytes owes any input, for a fuzz target: a failure is
// an *sources.Error with a kind; a bar has a positive close, a volume of zero or more and a
// start in UTC, on a whole minute when minute is set (parsers that leave that check to Bars
// leave it false). It reports whether the bytes parsed, for checks of the caller's own.
func Fuzzed(t *testing.T, bars []sources.Bar, err error, minute bool) bool {
	t.Helper()
	if err != nil {
		var e *sources.Error
		if !errors.As(err, &e) || e.Kind == nil {
			t.Fatalf("error without a kind: %v", err)
		}
		return false
	}
	for _, b := range bars {
		if b.Close <= 0 || b.Volume < 0 || b.Start.Location() != time.UTC || (minute && !b.Start.Truncate(time.Minute).Equal(b.Start)) {
			t.Fatalf("bad bar %+v", b)
		}
	}
	return true
}
