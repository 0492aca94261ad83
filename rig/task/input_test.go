package task

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestParseInputAccepts(t *testing.T) {
	minute := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	canonical := `{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`
	tests := []struct {
		name   string
		uri    string
		symbol string
		minute time.Time
	}{
		{"canonical", "data:application/json," + canonical, "NVDA", minute},
		{"percent-encoded", "data:application/json," + url.PathEscape(canonical), "NVDA", minute},
		{"fully percent-encoded", "data:application/json,%7B%22symbol%22%3A%22TSLA%22%2C%22minute%22%3A%222026-11-27T15%3A30%3A00Z%22%7D", "TSLA", minute},
		{"base64", "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(canonical)), "NVDA", minute},
		{"base64 with charset", "data:application/json;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(`{"minute":1795793400,"symbol":"SPY"}`)), "SPY", minute},
		{"base64 with escaped plus", "data:application/json;base64," + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(`{"symbol":"SPY","minute":"2026-11-27T15:30:00Z" }  `))), "SPY", minute},
		{"unix seconds", `data:application/json,{"symbol":"SPY","minute":1795793400}`, "SPY", minute},
		{"offset converted to UTC", `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T10:30:00-05:00"}`, "NVDA", minute},
		{"zero fraction", `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00.000Z"}`, "NVDA", minute},
		{"whitespace and key order", "data:application/json, { \"minute\" : \"2026-11-27T15:30:00Z\" ,\n \"symbol\" : \"TSLA\" } ", "TSLA", minute},
		{"upper-case scheme and type", `DATA:Application/JSON,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`, "NVDA", minute},
		{"epoch", `data:application/json,{"symbol":"NVDA","minute":0}`, "NVDA", time.Unix(0, 0).UTC()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := ParseInput(tc.uri)
			if err != nil {
				t.Fatalf("ParseInput(%q): %v", tc.uri, err)
			}
			if in.Symbol != tc.symbol || !in.Minute.Equal(tc.minute) || in.Minute.Location() != time.UTC {
				t.Fatalf("got %s %s, want %s %s", in.Symbol, in.Minute, tc.symbol, tc.minute)
			}
		})
	}
}

func TestParseInputRejects(t *testing.T) {
	j := func(payload string) string { return "data:application/json," + payload }
	tests := []struct {
		name string
		uri  string
		want error
	}{
		{"https URL", "https://example.com/input.json", ErrNotDataURI},
		{"ipfs URI", "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", ErrNotDataURI},
		{"empty", "", ErrNotDataURI},
		{"no comma", "data:application/json", ErrNotDataURI},
		{"text/plain default", `data:,{"symbol":"NVDA","minute":0}`, ErrMediaType},
		{"text/plain", `data:text/plain,{"symbol":"NVDA","minute":0}`, ErrMediaType},
		{"other charset", `data:application/json;charset=latin1,{"symbol":"NVDA","minute":0}`, ErrMediaType},
		{"bad base64", "data:application/json;base64,!!!", ErrInputEncoding},
		{"bad percent", j(`{"symbol":"NV%ZZ","minute":0}`), ErrInputEncoding},
		{"malformed JSON", j(`{"symbol":"NVDA","minute":0`), ErrInputJSON},
		{"not an object", j(`["NVDA",0]`), ErrInputJSON},
		{"trailing data", j(`{"symbol":"NVDA","minute":0}{}`), ErrInputJSON},
		{"extra field", j(`{"symbol":"NVDA","minute":0,"source":"yahoo"}`), ErrInputJSON},
		{"missing minute", j(`{"symbol":"NVDA"}`), ErrInputJSON},
		{"missing symbol", j(`{"minute":0}`), ErrInputJSON},
		{"duplicate symbol", j(`{"symbol":"NVDA","symbol":"TSLA","minute":0}`), ErrInputJSON},
		{"duplicate minute", j(`{"symbol":"NVDA","minute":0,"minute":60}`), ErrInputJSON},
		{"wrong key case", j(`{"Symbol":"NVDA","minute":0}`), ErrInputJSON},
		{"symbol not a string", j(`{"symbol":7,"minute":0}`), ErrInputJSON},
		{"symbol null", j(`{"symbol":null,"minute":0}`), ErrInputJSON},
		{"unknown symbol", j(`{"symbol":"AAPL","minute":0}`), ErrUnknownSymbol},
		{"lower-case symbol", j(`{"symbol":"nvda","minute":0}`), ErrUnknownSymbol},
		{"unaligned seconds", j(`{"symbol":"NVDA","minute":1795793401}`), ErrUnalignedMinute},
		{"unaligned RFC 3339", j(`{"symbol":"NVDA","minute":"2026-11-27T15:30:30Z"}`), ErrUnalignedMinute},
		{"fractional second", j(`{"symbol":"NVDA","minute":"2026-11-27T15:30:00.5Z"}`), ErrUnalignedMinute},
		{"float seconds", j(`{"symbol":"NVDA","minute":1795793400.0}`), ErrBadMinute},
		{"exponent seconds", j(`{"symbol":"NVDA","minute":1.7957934e9}`), ErrBadMinute},
		{"negative seconds", j(`{"symbol":"NVDA","minute":-60}`), ErrBadMinute},
		{"huge seconds", j(`{"symbol":"NVDA","minute":99999999999999999999}`), ErrBadMinute},
		{"not RFC 3339", j(`{"symbol":"NVDA","minute":"2026-11-27 15:30"}`), ErrBadMinute},
		{"minute bool", j(`{"symbol":"NVDA","minute":true}`), ErrBadMinute},
		{"minute null", j(`{"symbol":"NVDA","minute":null}`), ErrBadMinute},
		{"too long", j(`{"symbol":"NVDA","minute":0}` + strings.Repeat(" ", MaxInputURI)), ErrInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := ParseInput(tc.uri)
			if err == nil {
				t.Fatalf("ParseInput(%q) = %+v, want an error", tc.uri, in)
			}
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrInput) {
				t.Fatalf("ParseInput(%q) = %v, want it to wrap %v and ErrInput", tc.uri, err, tc.want)
			}
		})
	}
}

func TestInputRulesSymbols(t *testing.T) {
	uri := `data:application/json,{"symbol":"AAPL","minute":0}`
	if _, err := ParseInput(uri); !errors.Is(err, ErrUnknownSymbol) {
		t.Fatalf("default rules took AAPL: %v", err)
	}
	rules := InputRules{Symbols: []string{"AAPL"}}
	in, err := rules.Parse(uri)
	if err != nil || in.Symbol != "AAPL" {
		t.Fatalf("rules with AAPL: %+v %v", in, err)
	}
	if _, err := rules.Parse(`data:application/json,{"symbol":"NVDA","minute":0}`); !errors.Is(err, ErrUnknownSymbol) {
		t.Fatalf("a caller's own set replaces the defaults, but NVDA passed: %v", err)
	}
}

func TestDecodeInputChecksHashFirst(t *testing.T) {
	uri := `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`
	hash := crypto.Keccak256Hash([]byte(uri))
	in, err := DecodeInput(uri, hash)
	if err != nil || in.Symbol != "NVDA" {
		t.Fatalf("DecodeInput: %+v %v", in, err)
	}
	// A different (even equivalent) string under the same hash is refused.
	other := strings.Replace(uri, ",{", ", {", 1)
	if _, err := DecodeInput(other, hash); !errors.Is(err, ErrInputHash) {
		t.Fatalf("hash of another string accepted: %v", err)
	}
	// The hash is checked before the content: a bad URI with a wrong hash reports the hash.
	if _, err := DecodeInput("https://example.com", hash); !errors.Is(err, ErrInputHash) {
		t.Fatalf("want the hash error first, got %v", err)
	}
	if _, err := DecodeInput("https://example.com", InputHash("https://example.com")); !errors.Is(err, ErrNotDataURI) {
		t.Fatalf("want ErrNotDataURI, got %v", err)
	}
}

func TestEncodeInput(t *testing.T) {
	minute := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	uri, hash, err := EncodeInput("NVDA", minute.In(time.FixedZone("EST", -5*3600)))
	if err != nil {
		t.Fatal(err)
	}
	const want = `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`
	if uri != want {
		t.Fatalf("uri = %s, want %s", uri, want)
	}
	if hash != crypto.Keccak256Hash([]byte(want)) {
		t.Fatalf("hash = %s", hash.Hex())
	}
	in, err := DecodeInput(uri, hash)
	if err != nil || in.Symbol != "NVDA" || !in.Minute.Equal(minute) {
		t.Fatalf("round trip: %+v %v", in, err)
	}
	if _, _, err := EncodeInput("AAPL", minute); !errors.Is(err, ErrUnknownSymbol) {
		t.Fatalf("AAPL: %v", err)
	}
	if _, _, err := EncodeInput("NVDA", minute.Add(time.Second)); !errors.Is(err, ErrUnalignedMinute) {
		t.Fatalf("unaligned: %v", err)
	}
}

// FuzzParseInput feeds arbitrary URIs to the parser: it must never panic, every error must
// wrap ErrInput, and whatever it accepts must re-encode canonically to the same input.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`,
		`data:application/json,{"symbol":"SPY","minute":1795793400}`,
		`data:application/json;base64,eyJzeW1ib2wiOiJUU0xBIiwibWludXRlIjowfQ==`,
		`data:application/json,%7B%22symbol%22%3A%22TSLA%22%2C%22minute%22%3A60%7D`,
		`data:application/json;charset=utf-8,{"minute":"1970-01-01T00:01:00+00:00","symbol":"NVDA"}`,
		`data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z","x":1}`,
		`data:,hello`,
		`http://127.0.0.1/x`,
		`data:application/json,{"symbol":"NVDA","minute":1e3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		in, err := ParseInput(uri)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v does not wrap ErrInput", err)
			}
			return
		}
		canon, hash, err := EncodeInput(in.Symbol, in.Minute)
		if err != nil {
			t.Fatalf("accepted %+v but cannot encode it: %v", in, err)
		}
		back, err := DecodeInput(canon, hash)
		if err != nil || back.Symbol != in.Symbol || !back.Minute.Equal(in.Minute) {
			t.Fatalf("canonical form %s decodes to %+v, %v; want %+v", canon, back, err, in)
		}
		if hash != common.BytesToHash(crypto.Keccak256([]byte(canon))) {
			t.Fatal("hash is not keccak256 of the canonical URI")
		}
	})
}
