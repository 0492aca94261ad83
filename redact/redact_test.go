package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

// leaks reports the longest start of secret (two characters or more, as is or query-escaped)
// that text holds, "" when none.
func leaks(text, secret string) string {
	for _, s := range []string{secret, url.QueryEscape(secret)} {
		for k := len(s); k >= 2; k-- {
			if strings.Contains(text, s[:k]) {
				return s[:k]
			}
		}
	}
	return ""
}

// TestClipAfterRedactAtEveryCut puts a secret at every position across a 200-byte cut and checks
// that redacting then clipping shows none of it: the order the sources layer uses.
func TestClipAfterRedactAtEveryCut(t *testing.T) {
	secret := "Zq9sEcReT-kEy+42/xyz"
	for pos := 150; pos <= 210; pos++ {
		text := strings.Repeat(".", pos) + secret + strings.Repeat(".", 50)
		got := Clip(With(text, Secrets(secret)), 200)
		if l := leaks(got, secret); l != "" {
			t.Fatalf("secret at %d: %q leaks %q", pos, got, l)
		}
	}
}

// TestCutBeforeRedactAtEveryCut is the case a cut made elsewhere (a parser clipping a price) hands
// over: text already clipped through a secret. The start of the secret before the ellipsis goes.
func TestCutBeforeRedactAtEveryCut(t *testing.T) {
	secret := "Zq9sEcReT-kEy-42-xyz"
	for _, register := range []bool{false, true} {
		var list []string
		if register {
			Register(secret)
		} else {
			list = Secrets(secret)
		}
		for pos := 0; pos <= 40; pos++ {
			text := strings.Repeat("7", pos) + secret + strings.Repeat("9", 30)
			for cut := 1; cut < len(text); cut++ {
				got := With(Clip(text, cut), list)
				// a cut that keeps one character of the secret may leave that character: the
				// check asks for nothing of two characters or more
				if l := leaks(got, secret); l != "" {
					t.Fatalf("registered %v, secret at %d, cut at %d: %q leaks %q", register, pos, cut, got, l)
				}
			}
		}
	}
}

func TestParamsAndEscapedForms(t *testing.T) {
	secret := "a b/c+d=e&f"
	text := "GET https://h/x?apiKey=" + url.QueryEscape(secret) + "&token=zzz&symbol=NVDA and " + secret
	got := With(text, Secrets(secret))
	for _, bad := range []string{secret, url.QueryEscape(secret), "zzz"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q holds %q", got, bad)
		}
	}
	if !strings.Contains(got, "symbol=NVDA") {
		t.Errorf("%q lost a harmless parameter", got)
	}
}

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef", "https://mainnet.infura.io/v3/REDACTED"},
		{"https://eth-mainnet.g.alchemy.com/v2/Ab_cd-EF12gh34IJ56kl", "https://eth-mainnet.g.alchemy.com/v2/REDACTED"},
		{"https://user:hunter2pass@rpc.example.org:8545/path", "https://REDACTED@rpc.example.org:8545/path"},
		{"https://rpc.example.org/?apikey=s3cr3tvalue&chain=4663", "https://rpc.example.org/?apikey=REDACTED&chain=4663"},
		{"http://127.0.0.1:8545", "http://127.0.0.1:8545"},
		{"https://rpc.mainnet.chain.robinhood.com/rpc", "https://rpc.mainnet.chain.robinhood.com/rpc"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// the secrets of a URL, once registered, are gone from any text that quotes the URL
	raw := "https://u:pw-0123456@host.example/v3/0123456789abcdef0123456789abcdef?token=tok-987654"
	Register(URLSecrets(raw)...)
	got := String(`Post "` + raw + `": dial tcp: connection refused`)
	for _, s := range []string{"pw-0123456", "0123456789abcdef0123456789abcdef", "tok-987654"} {
		if strings.Contains(got, s) {
			t.Errorf("%q holds %q", got, s)
		}
	}
}

func TestWriter(t *testing.T) {
	Register("writer-secret-123")
	var buf bytes.Buffer
	w := Writer(&buf)
	in := "level=WARN msg=x error=\"body said writer-secret-123\"\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if strings.Contains(buf.String(), "writer-secret-123") || !strings.Contains(buf.String(), Mark) {
		t.Errorf("wrote %q", buf.String())
	}
	buf.Reset()
	plain := "NVDA 2026-11-27T15:30:00Z 187.23000000\n"
	_, _ = w.Write([]byte(plain))
	if buf.String() != plain {
		t.Errorf("a line without secrets changed: %q", buf.String())
	}
	// An unregistered key in a query is still caught (the '=' pre-check must not skip it).
	buf.Reset()
	_, _ = w.Write([]byte("GET https://x.example/q?apikey=Unregistered999 failed\n"))
	if strings.Contains(buf.String(), "Unregistered999") {
		t.Errorf("an unregistered query key was written: %q", buf.String())
	}
}

// BenchmarkWriterCSVRows writes export-shaped rows (no '=', no secret) through the Writer and,
// side by side, straight to the buffer: the ratio is what redaction costs a large export.
func BenchmarkWriterCSVRows(b *testing.B) {
	Register("bench-secret-abcdef")
	row := []byte("NVDA,2026-11-27T15:30:00Z,18723000000,187.23,3,alpaca:18723000000|massive:18723000000\n")
	for _, bc := range []struct {
		name string
		w    func(*bytes.Buffer) io.Writer
	}{
		{"redacted", func(b *bytes.Buffer) io.Writer { return Writer(b) }},
		{"plain", func(b *bytes.Buffer) io.Writer { return b }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			w := bc.w(&buf)
			b.SetBytes(int64(len(row)))
			for b.Loop() {
				buf.Reset()
				_, _ = w.Write(row)
			}
		})
	}
}

func TestShortSecretsAreNotRegistered(t *testing.T) {
	Register("12345")
	if Registered("12345") {
		t.Error("a five-character secret was registered: it would cut holes in every price printed")
	}
	if got := With("a 12345 b", Secrets("12345")); strings.Contains(got, "12345") {
		t.Errorf("a client's own short secret stayed in its error: %q", got)
	}
}

func FuzzClipRedact(f *testing.F) {
	f.Add("prefix", 10, "Zq9sEcReTkEy42")
	f.Fuzz(func(t *testing.T, pad string, cut int, secret string) {
		// the secret holds a digit and the padding none, so no occurrence can be made of padding
		// and REDACTED marks
		if len(secret) < 2 || len(secret) > 64 || len(pad) > 400 || !strings.ContainsAny(secret, "0123456789") ||
			strings.ContainsAny(pad, "0123456789") || strings.Contains(secret, Ellipsis) || strings.Contains(pad, Ellipsis) {
			return
		}
		text := pad + secret + pad
		cut = ((cut % (len(text) + 1)) + len(text) + 1) % (len(text) + 1)
		got := Clip(With(text, Secrets(secret)), cut)
		if strings.Contains(got, secret) {
			t.Fatalf("%q holds the secret %q", got, secret)
		}
		got = With(Clip(text, cut), Secrets(secret))
		if strings.Contains(got, secret) {
			t.Fatalf("%q holds the secret %q", got, secret)
		}
	})
}

// Register while other goroutines redact: each reads the registry it was handed, which Register
// never changes in place (go test -race fails here when it sorts the shared slice).
func TestRegisterWhileRedacting(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				_ = String("nothing secret here")
			}
		}
	}()
	for i := range 50 {
		Register(fmt.Sprintf("concurrent-secret-%03d-%s", i, strings.Repeat("x", i)))
	}
	close(stop)
	<-done
	for i := range 50 {
		s := fmt.Sprintf("concurrent-secret-%03d-%s", i, strings.Repeat("x", i))
		if got := String("the secret is " + s); strings.Contains(got, s) {
			t.Fatalf("%q is not redacted after Register: %q", s, got)
		}
	}
}

func TestErrorRedactsAnErrorsText(t *testing.T) {
	Register("err-secret-4711")
	err := fmt.Errorf("rpc unavailable: %w", errors.New(`Post "https://node/v3/err-secret-4711?apikey=zzz": refused`))
	if got, want := Error(err), `rpc unavailable: Post "https://node/v3/REDACTED?apikey=REDACTED": refused`; got != want {
		t.Fatalf("Error = %q, want %q", got, want)
	}
}

// TestParamsKeepWhatFollowsARegisteredSecret: a password= value already taken out by its
// registered secret leaves the rest of the message (issue 33: the port's error was swallowed).
func TestParamsKeepWhatFollowsARegisteredSecret(t *testing.T) {
	Register("SuperSecretPw2x")
	got := String("cannot parse `postgres://h/db?password=SuperSecretPw2x`: invalid port")
	if want := "cannot parse `postgres://h/db?password=REDACTED`: invalid port"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := String("password=REDACTEDmore and the rest"); got != "password=REDACTED and the rest" {
		t.Errorf("a value that only starts with the mark is still a value: %q", got)
	}
}
