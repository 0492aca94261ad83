package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// walk reads any JSON value with the Stream's calls, Fields for objects whose first member is
// "f" and Column for arrays under a member "col", so every helper meets every body.
func walk(s *Stream, under string) error {
	switch s.Kind() {
	case '{':
		return s.Object(func(name []byte) error { return walk(s, string(name)) })
	case '[':
		if under == "col" {
			var c Column
			return c.Read(s, nil)
		}
		return s.Array(func(int) error { return walk(s, "") })
	case '"':
		_, err := s.String()
		return err
	}
	if under == "skip" {
		return s.Skip()
	}
	_, err := s.Raw()
	return err
}

// FuzzStream: the Stream reads every body encoding/json finds valid and refuses every other,
// with an *Error of kind ErrBadResponse and no panic.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":null}],"col":["x",1.5e3,true],"skip":{"d":[]}}`, `[]`, `"\u00e9\n"`, `{"a":1,"a":2}`,
		`{"s":"ok","t":[1,2,3],"c":["`, `  [1 , 2 ]  `, `[1] [2]`, `{"\u0066":"esc"}`, `nul`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := DecodeBytes(body, func(s *Stream) (struct{}, error) { return struct{}{}, walk(s, "") })
		valid := json.Valid(body)
		if valid != (err == nil) {
			t.Fatalf("body %q: encoding/json valid %v, stream error %v", body, valid, err)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || !errors.Is(err, ErrBadResponse)) {
			t.Fatalf("error %v is not a bad response", err)
		}
	})
}

func TestFieldsAndColumns(t *testing.T) {
	body := `{"rows":[{"t":1,"c":"a\"b","x":[1,{"y":2}]},{"c":null},{"t":3}],"col":[10,20,30,40],"\u0074":[0,1,2,3],"after":[10,20,30,40]}`
	row := NewFields("t", "c")
	var got []string
	var before, after Column
	keep := Rows{1, 3}
	_, err := DecodeBytes([]byte(body), func(s *Stream) (struct{}, error) {
		return struct{}{}, s.Object(func(name []byte) error {
			switch string(name) {
			case "rows":
				return s.Array(func(i int) error {
					if err := row.Read(s); err != nil {
						return err
					}
					got = append(got, string(row.Get(0))+"|"+string(row.Get(1)))
					return nil
				})
			case "col":
				return before.Read(s, nil)
			case "t": // the escaped name, unquoted
				return s.Skip()
			case "after":
				return after.Read(s, keep)
			}
			t.Fatalf("unexpected member %q", name)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// a member a row lacks is nil, not the previous row's value
	if want := []string{`1|"a\"b"`, `|null`, `3|`}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows %q, want %q", got, want)
	}
	for i, want := range []string{"10", "20", "30", "40"} {
		if g := string(before.At(i)); g != want {
			t.Errorf("column before the time column, row %d: %q, want %q", i, g, want)
		}
	}
	for i, want := range []string{"", "20", "", "40"} {
		if g := string(after.At(i)); g != want {
			t.Errorf("column after the time column, row %d: %q, want %q", i, g, want)
		}
	}
	if before.Len() != 4 || after.Len() != 4 || len(after.buf) != 4 {
		t.Errorf("lengths %d and %d, %d bytes held after: want 4, 4 and only rows 1 and 3 (4 bytes)", before.Len(), after.Len(), len(after.buf))
	}
}

func TestStreamRefusesTrailingAndTruncatedBodies(t *testing.T) {
	for _, body := range []string{`{"a":1} {`, `{"a":1}x`, `{"a":[1,2`, ``, `{"a":1`} {
		_, err := DecodeBytes([]byte(body), func(s *Stream) (struct{}, error) { return struct{}{}, walk(s, "") })
		if !errors.Is(err, ErrBadResponse) {
			t.Errorf("%q: error %v, want a bad response", body, err)
		}
	}
}

// fetchTotal asks for a body of numbers and sums those in the window kept (as unix seconds).
func fetchTotal(ctx context.Context, c *Client, keep Window, limit int64) (int64, error) {
	return Fetch(ctx, c, Request{Path: "/n", Limit: limit, Keep: keep}, func(s *Stream) (int64, error) {
		var sum int64
		err := s.Array(func(int) error {
			raw, err := s.Raw()
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return Errorf("", ErrBadResponse, "%q is not a number", raw)
			}
			if keep.Has(time.Unix(n, 0)) {
				sum += n
			}
			return nil
		})
		return sum, err
	})
}

func TestFetch(t *testing.T) {
	var hits atomic.Int32
	var body atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b := body.Load().(string)
		if strings.HasPrefix(b, "5xx") {
			w.WriteHeader(http.StatusServiceUnavailable)
			b = strings.TrimPrefix(b, "5xx")
		}
		_, _ = io.WriteString(w, b)
	}))
	defer ts.Close()
	c, sleeps := newTestClient(ts.URL, Settings{}, ClientOptions{})
	win := Window{time.Unix(2, 0), time.Unix(4, 0)}
	run := func(b string, limit int64) (int64, error) {
		hits.Store(0)
		body.Store(b)
		return fetchTotal(context.Background(), c, win, limit)
	}
	if sum, err := run(`[1,2,3,4]`, 100); err != nil || sum != 5 || hits.Load() != 1 {
		t.Errorf("sum %d, %v after %d requests: want 5 (2+3), one request", sum, err, hits.Load())
	}
	// exactly at the cap is a body; a byte over is too large, however it ends
	if _, err := run(`[1,2,3,4]`, int64(len(`[1,2,3,4]`))); err != nil {
		t.Errorf("a body the size of its cap: %v", err)
	}
	for _, b := range []string{`[1,2,3,4] `, `[1,2,"` + strings.Repeat("a", 1000)} {
		_, err := run(b, 9)
		var e *Error
		if !errors.Is(err, ErrBodyTooLarge) || !errors.As(err, &e) || e.Source != "test" || hits.Load() != 1 {
			t.Errorf("%.20q over its cap: %v after %d requests, want ErrBodyTooLarge of test after one", b, err, hits.Load())
		}
	}
	// a body the decoder refuses is a bad response of the source, not asked again
	for _, b := range []string{`[1,"x"]`, `[1,2`, `{}`} {
		_, err := run(b, 100)
		var e *Error
		if !errors.As(err, &e) || e.Source != "test" || e.Status != 200 || !errors.Is(err, ErrBadResponse) || errors.Is(err, ErrBodyTooLarge) || hits.Load() != 1 {
			t.Errorf("%q: %v after %d requests, want a bad response of test (HTTP 200) after one", b, err, hits.Load())
		}
	}
	// a non-2xx answer is read whole and explained by ResponseError, after the retries
	n := len(sleeps.Waits())
	_, err := run(`5xx{"message":"down for maintenance"}`, 100)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "maintenance") || hits.Load() != 1+DefaultRetries || len(sleeps.Waits()) != n+DefaultRetries {
		t.Errorf("5xx: %v after %d requests", err, hits.Load())
	}
}

// TestFetchCoalescesPerWindow: callers asking one URL for one window share a decode; another
// window is another decode, since what a decoder keeps depends on it.
func TestFetchCoalescesPerWindow(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		_, _ = io.WriteString(w, `[1,2,3,4]`)
	}))
	defer ts.Close()
	c, _ := newTestClient(ts.URL, Settings{}, ClientOptions{})
	wins := []Window{{time.Unix(2, 0), time.Unix(4, 0)}, {time.Unix(2, 0), time.Unix(4, 0)}, {time.Unix(1, 0), time.Unix(5, 0)}}
	sums := make([]int64, len(wins))
	done := make(chan error, len(wins))
	for i, w := range wins {
		go func() {
			var err error
			sums[i], err = fetchTotal(context.Background(), c, w, 100)
			done <- err
		}()
	}
	for c.callers.Load() < int64(len(wins)) {
		runtime.Gosched()
	}
	close(release)
	for range wins {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if sums[0] != 5 || sums[1] != 5 || sums[2] != 10 {
		t.Errorf("sums %v, want [5 5 10]", sums)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2: one per window", hits.Load())
	}
}

func TestRowArray(t *testing.T) {
	row := NewFields("n")
	for _, tc := range []struct {
		body string
		kind error
		msg  string
	}{
		{`[{"n":1},{"n":2}]`, nil, ""},
		{`{"detail":"Invalid token."}`, ErrUnauthorized, "Invalid token."},
		{`{"x":1}`, ErrBadResponse, "object instead"},
		{`null`, ErrBadResponse, "not an array"},
		{`"no"`, ErrBadResponse, "not a test array: a string"},
		{`Restricted Endpoint`, ErrBadResponse, "not a test array"},
		{`[{"n":1},[2]]`, ErrBadResponse, "not a test array"},
	} {
		var ns []string
		_, err := DecodeBytes([]byte(tc.body), func(s *Stream) (struct{}, error) {
			return struct{}{}, RowArray(s, row, "a test array", func(int) error { ns = append(ns, string(row.Get(0))); return nil })
		})
		switch {
		case tc.kind == nil && (err != nil || strings.Join(ns, ",") != "1,2"):
			t.Errorf("%s: %v, rows %v", tc.body, err, ns)
		case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("%s: error %v, want %v saying %q", tc.body, err, tc.kind, tc.msg)
		}
	}
}

func TestHeadKeepsTheStart(t *testing.T) {
	body := "Restricted Endpoint: upgrade your plan\n" + strings.Repeat("x", 10000)
	s := NewStream(bytes.NewReader([]byte(body)))
	_ = s.Kind()
	if h := string(s.Head()); !strings.HasPrefix(h, "Restricted Endpoint") || len(h) > headSize {
		t.Errorf("head %.40q… (%d bytes)", h, len(h))
	}
}

// TestMembersAndHeldBars: Members reads the named string members wherever they stand and hands
// every other member to its function (skipping them when it has none); Strings reads null as an
// absent object; Hold keeps a bar's texts; ParseBar's errors say which field failed.
func TestMembersAndHeldBars(t *testing.T) {
	body := `{"values":[{"c":"1.5","v":"7"}],"status":"ok","note":null,"extra":{"status":"no"},"message":"hi \"x\""}`
	var status, message, note string
	var others []string
	var held []Held
	var text Texts
	row := NewFields("c", "v")
	_, err := DecodeBytes([]byte(body), func(s *Stream) (struct{}, error) {
		return struct{}{}, s.Members([]Member{Text("status", &status), Text("message", &message), Text("note", &note)}, func(name []byte) error {
			others = append(others, string(name))
			if string(name) != "values" {
				return s.Skip()
			}
			return s.Array(func(int) error {
				if err := row.Read(s); err != nil {
					return err
				}
				return text.Hold(&held, Held{Wall: time.Unix(60, 0)}, row.Get(0), row.Get(1))
			})
		})
	})
	if err != nil || status != "ok" || message != `hi "x"` || note != "" || strings.Join(others, ",") != "values,extra" {
		t.Fatalf("Members: status %q message %q note %q others %v, %v", status, message, note, others, err)
	}
	if len(held) != 1 || string(text.Get(held[0].Close)) != `"1.5"` || string(text.Get(held[0].Volume)) != `"7"` {
		t.Fatalf("held %+v", held)
	}
	bar, err := ParseBar(held[0].Wall, text.Get(held[0].Close), text.Get(held[0].Volume))
	if err != nil || bar.Close != 150_000_000 || bar.Volume != 7 || !bar.Start.Equal(time.Unix(60, 0)) {
		t.Fatalf("ParseBar: %+v, %v", bar, err)
	}
	if _, err := ParseBar(bar.Start, []byte(`"x"`), []byte("1")); err == nil || !strings.HasPrefix(err.Error(), "close: ") {
		t.Errorf("a bad close: %v", err)
	}
	if _, err := ParseBar(bar.Start, []byte("1"), []byte("-3")); err == nil || strings.HasPrefix(err.Error(), "close") || !strings.Contains(err.Error(), "volume") {
		t.Errorf("a bad volume: %v", err)
	}
	var sym string
	for _, b := range []string{`null`, `{"symbol":"AAPL","x":[1]}`} {
		ok, err := DecodeBytes([]byte(b), func(s *Stream) (bool, error) { return s.Strings(Text("symbol", &sym)) })
		if err != nil || ok != (b != "null") {
			t.Errorf("Strings(%s) = %v, %v", b, ok, err)
		}
	}
	if sym != "AAPL" {
		t.Errorf("Strings read symbol %q", sym)
	}
}
