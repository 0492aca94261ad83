package sources

// How a body lays its bars out, read with a Stream: row objects (Fields, RowArray), column
// arrays (Column, Rows), and the texts a decoder keeps until the body's end says how to read
// them (Texts, Held).

import (
	"bytes"
	"slices"
	"time"
)

// Fields reads row objects one at a time, keeping the raw JSON text of the members it was made
// for and skipping the rest. Its buffers are reused from row to row, so a row costs no
// allocation: the hot loop of every row-per-bar decoder.
type Fields struct {
	names []string
	vals  [][]byte
	has   []bool
}

// NewFields is a Fields for the member names given; Get(i) is names[i]'s value.
func NewFields(names ...string) *Fields {
	return &Fields{names: names, vals: make([][]byte, len(names)), has: make([]bool, len(names))}
}

// Read reads the next value, which must be an object, as one row.
func (f *Fields) Read(s *Stream) error {
	clear(f.has)
	if err := s.open('{'); err != nil {
		return err
	}
next:
	for {
		name, more, err := s.member()
		if err != nil {
			return err
		}
		if !more {
			return s.close()
		}
		for i, n := range f.names {
			if string(name) == n {
				raw, err := s.Raw()
				if err != nil {
					return err
				}
				f.vals[i], f.has[i] = append(f.vals[i][:0], raw...), true
				continue next
			}
		}
		if err := s.Skip(); err != nil {
			return err
		}
	}
}

// Get is the raw text of member i of the last row, nil when the row did not have it.
func (f *Fields) Get(i int) []byte {
	if !f.has[i] {
		return nil
	}
	return f.vals[i]
}

// Texts holds the raw texts a decoder keeps until the body's end (for a zone or labels it learns
// last) in one buffer, so a kept bar costs no string of its own.
type Texts struct{ buf []byte }

// Span is where a text lies in Texts.
type Span struct{ from, to int32 }

// Put keeps a copy of b; past 2 GiB of texts it fails as a bad response.
func (t *Texts) Put(b []byte) (Span, error) {
	if len(t.buf)+len(b) > 1<<31-1 {
		return Span{}, Errorf("", ErrBadResponse, "more than 2 GiB of bars kept")
	}
	from := len(t.buf)
	t.buf = append(t.buf, b...)
	return Span{int32(from), int32(len(t.buf))}, nil
}

// Get is the text kept at sp, valid until the next Put.
func (t *Texts) Get(sp Span) []byte { return t.buf[sp.from:sp.to] }

// Held is a bar a decoder holds until the body's end says how to read its time (a zone or labels
// it gives last): the wall clock its key was read as, and where the texts of its key, close and
// volume lie in the decoder's Texts.
type Held struct {
	Wall               time.Time
	Key, Close, Volume Span
}

// Hold puts close's and volume's texts in t and appends h, holding them, to held. h.Key is the
// caller's to put first: a key read as a member name is gone by the next read.
func (t *Texts) Hold(held *[]Held, h Held, close, volume []byte) error {
	var err error
	if h.Close, err = t.Put(close); err != nil {
		return err
	}
	if h.Volume, err = t.Put(volume); err != nil {
		return err
	}
	*held = append(*held, h)
	return nil
}

// Rows is the set of row indexes a column-array body's time column kept, ascending.
type Rows []int

// Column is one column of a column-array body (UDF's c and v, Yahoo's close and volume): the raw
// text of its elements in one buffer. A column read before the time column holds every element
// (the body's order leaves no choice, but at a few bytes an element, not a slice header and an
// allocation each); one read after it holds only the rows the time column kept.
type Column struct {
	buf  []byte
	ends []int32
	rows Rows // the rows held, when the column was read after the time column; nil: all
	n    int  // elements in the body's column
	read bool
}

// Read reads the column's array. keep is the time column's choice when it came first (not nil,
// though maybe empty), nil when it has not been read yet.
func (c *Column) Read(s *Stream, keep Rows) error {
	c.buf, c.ends, c.n, c.read, c.rows = c.buf[:0], c.ends[:0], 0, true, keep
	next := 0 // the next kept row
	return s.Array(func(i int) error {
		c.n++
		if keep != nil {
			if next >= len(keep) || keep[next] != i {
				return s.Skip()
			}
			next++
		}
		raw, err := s.Raw()
		if err != nil {
			return err
		}
		if len(c.buf)+len(raw) > 1<<31-1 {
			return Errorf("", ErrBadResponse, "column larger than 2 GiB")
		}
		c.buf = append(c.buf, raw...)
		c.ends = append(c.ends, int32(len(c.buf)))
		return nil
	})
}

// Present reports whether the body had the column.
func (c *Column) Present() bool { return c.read }

// Len is how many elements the body's column had.
func (c *Column) Len() int { return c.n }

// At is the raw text of row i, nil when the column does not hold it.
func (c *Column) At(i int) []byte {
	j := i
	if c.rows != nil {
		var ok bool
		if j, ok = slices.BinarySearch(c.rows, i); !ok {
			return nil
		}
	}
	if j < 0 || j >= len(c.ends) {
		return nil
	}
	start := int32(0)
	if j > 0 {
		start = c.ends[j-1]
	}
	return c.buf[start:c.ends[j]]
}

// RowArray reads a body that is an array of row objects (Tiingo's and FMP's), reading each row
// into f and handing its index to each. An object instead of the array is the provider's error
// (its message, classified by its words); null and other values are bad responses. what names
// the array in messages ("a Tiingo prices array").
func RowArray(s *Stream, f *Fields, what string, each func(i int) error) error {
	switch k := s.Kind(); k {
	case '[':
	case '{':
		raw, err := s.Raw()
		if err != nil {
			return err
		}
		msg := ProviderMessage(raw)
		if msg == "" || msg == string(bytes.TrimSpace(raw)) {
			msg = "object instead of an array of bars"
		}
		return Errorf("", ClassifyMessage(msg), "%s", msg)
	case 'n':
		return Errorf("", ErrBadResponse, "body is null, not an array of bars")
	case '"', '0', 't', 'f':
		return Errorf("", ErrBadResponse, "not %s: %s", what, kindName(k))
	default: // not JSON: the reading says where
		_, err := s.Raw()
		return Errorf("", ErrBadResponse, "not %s: %s", what, streamMessage(err))
	}
	var rowErr error
	err := s.Array(func(i int) error {
		if err := f.Read(s); err != nil {
			return err
		}
		rowErr = each(i)
		return rowErr
	})
	if err != nil && rowErr == nil {
		return Errorf("", ErrBadResponse, "not %s: %s", what, streamMessage(err))
	}
	return err
}
