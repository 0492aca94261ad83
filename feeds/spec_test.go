package feeds

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

const goodSpec = `version: 1
spec_uri: ipfs://job2
job: {id: 2, scale: 8, tolerance_bps: 50, quorum: 3, price: 0.00002, slash: 1.5e-5}
reconcile:
  min_sources: 3
  outlier_bps: 30
  max_carry: 72h
  window: 15m
  deadline: 5s
  early_quorum: all
  sessions: [pre, regular]
sources:
  plain:
    type: test-plain
    base_url: https://plain.example
    rate: 30/min
    quota: 50/hour, 1000/day
    timeout: 3s
    retries: 1
    feed: iex
  keyed:
    type: test-keyed
    base_url: https://keyed.example/v1
    key_env: KEYED_ID
    secret_env: KEYED_SECRET
    region: us
feeds:
  NVDA: {plain: NVDA, keyed: Equity.US.NVDA/USD}
  SPY:
    plain: SPY
splits:
  NVDA:
    - {date: 2024-06-10, ratio: 10}
    - {date: 2021-07-20, ratio: 4}
refusal_answer: 7
`

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadGood(t *testing.T) {
	spec, err := Load([]byte(goodSpec), LoadOptions{Getenv: env(map[string]string{"KEYED_ID": "id-1", "KEYED_SECRET": "s3cret"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Warnings) != 0 {
		t.Errorf("warnings: %v", spec.Warnings)
	}
	j := spec.Job
	if spec.Version != 1 || spec.SpecURI != "ipfs://job2" || j.ID != 2 || j.Scale != 8 || j.ToleranceBps != 50 || j.Quorum != 3 ||
		j.Price.String() != "20000000000000" || j.Slash.String() != "15000000000000" {
		t.Errorf("header: %+v %+v", spec, spec.Job)
	}
	if spec.RefusalAnswer == nil || *spec.RefusalAnswer != 7 {
		t.Errorf("refusal_answer %v, want 7", spec.RefusalAnswer)
	}
	r := spec.Rules
	if r.MinSources != 3 || r.OutlierBps != 30 || r.MaxCarry != 72*time.Hour || r.Window != 15*time.Minute ||
		r.Deadline != 5*time.Second || r.EarlyQuorum != WaitForAll || len(r.Sessions) != 2 || r.Sessions[1] != market.Regular {
		t.Errorf("rules: %+v", r)
	}
	if len(spec.Sources) != 2 {
		t.Fatalf("sources: %+v", spec.Sources)
	}
	plain, keyed := spec.Sources[0], spec.Sources[1]
	if plain.Name != "plain" || plain.Type != "test-plain" || plain.BaseURL != "https://plain.example" ||
		plain.Rate != (sources.Rate{N: 30, Per: time.Minute}) || plain.Timeout != 3*time.Second || plain.Retries != 1 ||
		plain.Options["feed"] != "iex" || plain.Line != 13 || !plain.Usable() || plain.Quota.String() != "50/hour, 1000/day" {
		t.Errorf("plain: %+v", plain)
	}
	if keyed.Key != "id-1" || keyed.Secret != "s3cret" || keyed.Options["region"] != "us" || !keyed.Usable() ||
		keyed.Coverage.Lookback != 29*24*time.Hour {
		t.Errorf("keyed: %+v", keyed)
	}
	if keyed.Rate != (sources.Rate{}) {
		t.Errorf("keyed rate %v, want the type's default (unlimited)", keyed.Rate)
	}
	nvda, ok := spec.Feed("NVDA")
	if !ok || len(nvda.Sources) != 2 {
		t.Fatalf("NVDA feed: %+v", nvda)
	}
	if sym, _ := nvda.ProviderSymbol("keyed"); sym != "Equity.US.NVDA/USD" {
		t.Errorf("keyed symbol %q", sym)
	}
	if got := spec.Symbols(); strings.Join(got, ",") != "NVDA,SPY" {
		t.Errorf("symbols %v", got)
	}
	sp := spec.Splits["NVDA"]
	if len(sp) != 2 || sp[0].Ratio != 10 || sp[0].Date.Format(time.DateOnly) != "2024-06-10" || sp[1].Ratio != 4 {
		t.Errorf("splits %+v", sp)
	}
}

// sameJob compares two jobs, their amounts by value.
func sameJob(a, b Job) bool {
	return a.ID == b.ID && a.Scale == b.Scale && a.ToleranceBps == b.ToleranceBps && a.Quorum == b.Quorum &&
		a.Price.Cmp(b.Price) == 0 && a.Slash.Cmp(b.Slash) == 0
}

func TestLoadDefaultsForOmittedKeys(t *testing.T) {
	spec, err := Load([]byte("version: 1\nsources:\n  p: {type: test-plain, base_url: 'http://x'}\nfeeds:\n  TSLA: {p: TSLA}\n"), LoadOptions{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if d := DefaultJob(); !sameJob(spec.Job, d) || d.Price.String() != "10000000000000" || d.Slash.String() != "10000000000000" {
		t.Errorf("job %+v, want the launch table's job 2 (0.00001 ETH price and slash)", spec.Job)
	}
	if spec.RefusalAnswer != nil {
		t.Errorf("refusal_answer %v without the key: a spec without the rule refuses nothing", *spec.RefusalAnswer)
	}
	d := DefaultRules()
	if spec.Rules.MinSources != d.MinSources || spec.Rules.MaxCarry != d.MaxCarry || len(spec.Rules.Sessions) != 3 {
		t.Errorf("rules %+v", spec.Rules)
	}
	if spec.Sources[0].Rate != (sources.Rate{N: 60, Per: time.Minute}) {
		t.Errorf("rate %v, want the type default", spec.Sources[0].Rate)
	}
}

func TestLoadMissingKeyIsAWarning(t *testing.T) {
	spec, err := Load([]byte(goodSpec), LoadOptions{Getenv: env(map[string]string{"KEYED_ID": "id-1"})})
	if err != nil {
		t.Fatal(err)
	}
	keyed, _ := spec.Source("keyed")
	if keyed.Usable() || keyed.Missing != "KEYED_SECRET is not set" {
		t.Errorf("keyed: usable=%v missing=%q", keyed.Usable(), keyed.Missing)
	}
	if len(spec.Warnings) != 1 || spec.Warnings[0].String() != "sources.yaml:21: sources.keyed: KEYED_SECRET is not set; the source is skipped" {
		t.Errorf("warnings %v", spec.Warnings)
	}
	if keyed.Key != "id-1" {
		t.Errorf("the key that is set is still read")
	}
}

func TestLoadOverrides(t *testing.T) {
	opts := LoadOptions{Getenv: env(nil), BaseURLs: map[string]string{"test-plain": "http://127.0.0.1:1/t", "keyed": "http://127.0.0.1:2/k"}}
	spec, err := Load([]byte(goodSpec), opts)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := spec.Source("plain"); p.BaseURL != "http://127.0.0.1:1/t" {
		t.Errorf("by type: %s", p.BaseURL)
	}
	if k, _ := spec.Source("keyed"); k.BaseURL != "http://127.0.0.1:2/k" {
		t.Errorf("by name: %s", k.BaseURL)
	}

	opts.BaseURLs = map[string]string{"test-keyed": "http://by-type", "keyed": "http://by-name"}
	spec, _ = Load([]byte(goodSpec), opts)
	if k, _ := spec.Source("keyed"); k.BaseURL != "http://by-name" {
		t.Errorf("name must win over type: %s", k.BaseURL)
	}

	spec, err = Load([]byte(goodSpec), LoadOptions{Getenv: env(nil), Sim: &SimTarget{Root: "http://127.0.0.1:9/", Key: "K", Secret: "S"}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := spec.Source("plain")
	k, _ := spec.Source("keyed")
	if p.BaseURL != "http://127.0.0.1:9/test-plain" || k.BaseURL != "http://127.0.0.1:9/test-keyed" {
		t.Errorf("sim base URLs %s %s", p.BaseURL, k.BaseURL)
	}
	if p.Key != "" || k.Key != "K" || k.Secret != "S" || !k.Usable() || len(spec.Warnings) != 0 {
		t.Errorf("sim keys: plain %q keyed %q/%q usable %v warnings %v", p.Key, k.Key, k.Secret, k.Usable(), spec.Warnings)
	}
}

// TestLoadErrors checks that each mistake is reported at its line and key, and that Load goes on
// past the first one.
// networks: names where AgentRig is deployed on each chain and how the chain numbers its blocks;
// a value that is not an address (an unquoted 0x… that YAML reads as a number included), a
// numbering that is neither ethereum nor nitro, or an unknown key is a problem on its line.
func TestLoadNetworks(t *testing.T) {
	const addr = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	spec, err := Load([]byte(goodSpec+"networks:\n  robinhood: {contract: \""+addr+"\"}\n  devnet:\n    contract: "+addr+"\n"),
		LoadOptions{File: "s.yaml", Getenv: env(map[string]string{"KEYED_ID": "i", "KEYED_SECRET": "s"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Networks) != 2 || spec.Networks["robinhood"].Contract != addr || spec.Networks["devnet"].Contract != addr {
		t.Fatalf("networks %+v", spec.Networks)
	}
	spec, err = Load([]byte(goodSpec+"networks:\n  robinhood: {blocks: nitro}\n  devnet: {blocks: ethereum}\n"),
		LoadOptions{File: "s.yaml", Getenv: env(map[string]string{"KEYED_ID": "i", "KEYED_SECRET": "s"})})
	if err != nil || spec.Networks["robinhood"].Blocks != "nitro" || spec.Networks["devnet"].Blocks != "ethereum" {
		t.Fatalf("networks %+v, %v", spec.Networks, err)
	}
	spec, err = Load([]byte(goodSpec+"networks:\n  robinhood:\n    rpcs:\n      - https://rpc.example/v2/abcdef0123456789abcdef\n      - wss://other.example\n  devnet: {rpcs: http://127.0.0.1:8545}\n"),
		LoadOptions{File: "s.yaml", Getenv: env(map[string]string{"KEYED_ID": "i", "KEYED_SECRET": "s"})})
	if err != nil || !slices.Equal(spec.Networks["robinhood"].RPCs, []string{"https://rpc.example/v2/abcdef0123456789abcdef", "wss://other.example"}) ||
		!slices.Equal(spec.Networks["devnet"].RPCs, []string{"http://127.0.0.1:8545"}) {
		t.Fatalf("networks' rpcs %+v, %v", spec.Networks, err)
	}
	_, err = Load([]byte(goodSpec+"networks:\n  robinhood: {contract: 0x12}\n  devnet: {rpc: x}\n  robinhood-testnet: {blocks: arbitrum}\n"+
		"  other:\n    rpcs:\n      - ftp://rpc.example/v2/abcdef0123456789abcdef\n      - wss://x.example\n      - wss://x.example\n"),
		LoadOptions{File: "s.yaml", Getenv: env(map[string]string{"KEYED_ID": "i", "KEYED_SECRET": "s"})})
	if err != nil && strings.Contains(err.Error(), "abcdef0123456789abcdef") {
		t.Errorf("a URL's key in an error: %v", err)
	}
	for _, want := range []string{`networks.robinhood.contract: "0x12" is not an address`, "networks.devnet.rpc: unknown key (want contract, blocks or rpcs)",
		`networks.robinhood-testnet.blocks: "arbitrum": want ethereum`, `s.yaml:`, `networks.other.rpcs[0]: "ftp://rpc.example/`, `networks.other.rpcs[2]: "wss://x.example" is listed twice`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // each a full problem line, in order
	}{
		{
			name: "bad rate names file line and key",
			yaml: "version: 1\nsources:\n  p:\n    type: test-plain\n    base_url: http://x\n    rate: 200/mn\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{`s.yaml:6: sources.p.rate: rate "200/mn": period must be s, min, h, day or a duration like 10s`},
		},
		{
			name: "bad quota names file line and key",
			yaml: "version: 1\nsources:\n  p:\n    type: test-plain\n    base_url: http://x\n    quota: 25/week\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{`s.yaml:6: sources.p.quota: quota "25/week": the period must be hour, day or month`},
		},
		{
			name: "every error, not just the first",
			yaml: `version: 1
colour: blue
reconcile: {max_carry: 4 days, outlier_bps: 0, sessions: [pre, lunch]}
sources:
  p: {type: test-plain, base_url: http://x, timeout: soon, rattle: 1}
  q: {type: nasdaq, base_url: http://y}
feeds:
  NVDA: {p: NVDA, nope: NVDA}
`,
			want: []string{
				"s.yaml:2: colour: unknown key (want version, spec_uri, job, refusal_answer, reconcile, sources, feeds, splits, networks)",
				`s.yaml:3: reconcile.max_carry: duration "4 days": want a Go duration like 90s, 30m or 96h`,
				"s.yaml:3: reconcile.outlier_bps: 0 is out of range 1..10000",
				`s.yaml:3: reconcile.sessions: unknown session "lunch" (want one of overnight, pre, regular, post)`,
				`s.yaml:5: sources.p.timeout: duration "soon": want a Go duration like 90s, 30m or 96h`,
				"s.yaml:5: sources.p.rattle: unknown key for type test-plain (want type, base_url, key_env, secret_env, rate, quota, timeout, retries, final_after, feed, sessions)",
				`s.yaml:6: sources.q.type: unknown source type "nasdaq"`,
				`s.yaml:8: feeds.NVDA.nope: no source named "nope" in sources`,
			},
		},
		{
			name: "a job's price and slash are ETH inside the seed's limits",
			yaml: "version: 1\njob:\n  price: 2\n  slash: 0.0000000000000000001\nsources:\n  p: {type: test-plain, base_url: http://x}\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{
				"s.yaml:3: job.price: 2 ETH is outside 0.000001 to 1 ETH",
				`s.yaml:4: job.slash: "0.0000000000000000001": more decimals than wei (18)`,
			},
		},
		{
			name: "bad final_after names file line and key",
			yaml: "version: 1\nsources:\n  p:\n    type: test-plain\n    base_url: http://x\n    final_after: -5s\n  q: {type: test-plain, base_url: http://y, final_after: soon}\n  r: {type: test-plain, base_url: http://z, final_after: 48h}\nfeeds: {NVDA: {p: NVDA, q: NVDA, r: NVDA}}\n",
			want: []string{
				"s.yaml:6: sources.p.final_after: duration -5s: must be at least 0 and at most 24h0m0s",
				`s.yaml:7: sources.q.final_after: duration "soon": want a Go duration like 35s or 15m (0: final when the minute ends)`,
				"s.yaml:8: sources.r.final_after: duration 48h0m0s: must be at least 0 and at most 24h0m0s",
			},
		},
		{
			name: "duplicate keys",
			yaml: "version: 1\nsources:\n  p: {type: test-plain, base_url: http://x}\n  p: {type: test-plain, base_url: http://y}\nfeeds:\n  NVDA: {p: NVDA}\n  NVDA: {p: NVDA}\n",
			want: []string{
				"s.yaml:4: sources.p: duplicate key (first at line 3)",
				"s.yaml:7: feeds.NVDA: duplicate key (first at line 6)",
			},
		},
		{
			name: "a type's own option is checked by the type",
			yaml: "version: 1\nsources:\n  p:\n    type: test-plain\n    base_url: http://x\n    feed: sipp\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{`s.yaml:6: sources.p.feed: "sipp": want iex or sip`},
		},
		{
			name: "keys a type needs",
			yaml: "version: 1\nsources:\n  k: {type: test-keyed, base_url: http://x}\nfeeds: {NVDA: {k: NVDA}}\n",
			want: []string{
				"s.yaml:3: sources.k.region: missing (type test-keyed requires it: required region)",
				"s.yaml:3: sources.k.key_env: missing: type test-keyed needs a key; name the environment variable that holds it",
				"s.yaml:3: sources.k.secret_env: missing: type test-keyed needs a secret; name the environment variable that holds it",
			},
		},
		{
			name: "a secret in place of a variable name, a URL with a key",
			yaml: "version: 1\nsources:\n  k: {type: test-keyed, base_url: 'https://x/?apikey=abc', key_env: 'pk-live 123', secret_env: S, region: us}\nfeeds: {NVDA: {k: NVDA}}\n",
			want: []string{
				`s.yaml:3: sources.k.base_url: base_url "https://x/?apikey=abc": no query or fragment; keys come from key_env`,
				`s.yaml:3: sources.k.key_env: "pk-live 123" is not an environment variable name (the key itself never goes in the file)`,
			},
		},
		{
			name: "refusal_answer is a whole non-negative answer",
			yaml: "version: 1\nrefusal_answer: -1\nsources: {p: {type: test-plain, base_url: http://x}}\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{"s.yaml:2: refusal_answer: -1 is out of range 0..9223372036854775807"},
		},
		{
			name: "refusal_answer is not a price",
			yaml: "version: 1\nrefusal_answer: 0.5\nsources: {p: {type: test-plain, base_url: http://x}}\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{`s.yaml:2: refusal_answer: "0.5" is not a decimal integer`},
		},
		{
			name: "missing top-level keys",
			yaml: "spec_uri: x\n",
			want: []string{"s.yaml:1: version: missing", "s.yaml:1: sources: missing", "s.yaml:1: feeds: missing"},
		},
		{
			name: "wrong shapes",
			yaml: "version: [1]\nsources: [a, b]\nfeeds:\n  NVDA: NVDA\nsplits:\n  NVDA: {date: 2024-06-10}\n",
			want: []string{
				`s.yaml:1: version: want a single value, got a list`,
				`s.yaml:2: sources: want a mapping of keys, got a list`,
				`s.yaml:4: feeds.NVDA: want a mapping of keys, got "NVDA"`,
				`s.yaml:6: splits.NVDA: want a list of {date: YYYY-MM-DD, ratio: N}, got a mapping`,
			},
		},
		{
			name: "splits",
			yaml: "version: 1\nsources: {p: {type: test-plain, base_url: http://x}}\nfeeds: {NVDA: {p: NVDA}}\nsplits:\n  NVDA:\n    - {date: 2024-06-09, ratio: 10}\n    - {date: 2021-07-20, ratio: 1}\n    - {date: 2021-07-20, ratio: 4}\n    - {date: 2024-13-01, ratio: 4}\n    - {ratio: 4}\n",
			want: []string{
				"s.yaml:6: splits.NVDA[0].date: date 2024-06-09: the market did not trade that day; a split's date is its first trading day",
				"s.yaml:7: splits.NVDA[1].ratio: 1 is out of range 2..1000",
				"s.yaml:8: splits.NVDA[2].date: split on 2021-07-20 listed twice (first at line 7)",
				`s.yaml:9: splits.NVDA[3].date: date "2024-13-01": want YYYY-MM-DD`,
				"s.yaml:10: splits.NVDA[4]: a split needs both date (its first trading day) and ratio (N for an N-for-1 split)",
			},
		},
		{
			name: "aliases are refused",
			yaml: "version: 1\nsources:\n  p: &P {type: test-plain, base_url: http://x}\n  q: *P\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{"s.yaml:4: sources.q: YAML aliases (*name) are not supported in a spec; write the value out"},
		},
		{
			name: "syntax error",
			yaml: "version: 1\nsources: [\n",
			want: []string{"s.yaml:2: YAML syntax: sequence end token ']' not found"},
		},
		{
			name: "empty",
			yaml: "",
			want: []string{"s.yaml: empty spec: want version, sources and feeds"},
		},
		{
			name: "too many lines for the parser",
			yaml: strings.Repeat("x: y\n", MaxSpecLines),
			want: []string{"s.yaml: 2001 lines is too long for a spec (at most 2000)"},
		},
		{
			name: "nesting too deep for the parser",
			yaml: "version: 1\nsources: " + strings.Repeat("[", 40),
			want: []string{"s.yaml:2: [ and { nest deeper than 32"},
		},
		{
			name: "brackets in quotes and comments do not count",
			yaml: "version: 1 # " + strings.Repeat("[", 40) + "\nspec_uri: '" + strings.Repeat("{", 40) + "'\nsources:\n" + strings.Repeat("- ", 40) + "x\n",
			want: []string{"s.yaml:4: indented deeper than 64 columns"},
		},
		{
			name: "window beyond max_carry, version 2",
			yaml: "version: 2\nreconcile: {max_carry: 1h, window: 2h}\nsources: {p: {type: test-plain, base_url: http://x}}\nfeeds: {NVDA: {p: NVDA}}\n",
			want: []string{
				"s.yaml:1: version: this pricerig reads spec version 1, not 2",
				"s.yaml:2: reconcile.window: window 2h0m0s is longer than max_carry 1h0m0s",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Load([]byte(tc.yaml), LoadOptions{File: "s.yaml", Getenv: env(nil)})
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("want a *LoadError, got spec=%v err=%v", spec, err)
			}
			if spec != nil {
				t.Errorf("a spec with errors must not be returned")
			}
			var got []string
			for _, p := range le.Problems {
				got = append(got, p.String())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(tc.want), strings.Join(tc.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// FuzzLoad feeds the loader arbitrary bytes: it must never panic, must either return a spec or a
// *LoadError with at least one problem, and a spec it returns must hang together.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodSpec))
	f.Add([]byte("version: 1\nsources: {p: {type: test-plain, base_url: http://x}}\nfeeds: {NVDA: {p: NVDA}}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("<<: {a: 1}\n"))
	f.Add([]byte("version: !!int 1\nsources: ~\nfeeds: |\n  x\n"))
	f.Add([]byte("- 1\n- 2\n"))
	f.Add([]byte("version: 1\n---\nversion: 1\n"))
	f.Add([]byte("{version: 1, sources: {p: {type: test-plain, base_url: http://x, feed: [iex, sip]}}, feeds: {A: {p: A}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := Load(data, LoadOptions{Getenv: func(string) string { return "" }})
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("error %v is not a *LoadError with problems", err)
			}
			return
		}
		names := map[string]bool{}
		for _, s := range spec.Sources {
			if names[s.Name] {
				t.Fatalf("source %s twice", s.Name)
			}
			names[s.Name] = true
			if _, ok := sources.Lookup(s.Type); !ok || s.BaseURL == "" {
				t.Fatalf("source %+v", s)
			}
		}
		for _, fd := range spec.Feeds {
			for _, fs := range fd.Sources {
				if !names[fs.Source] || fs.Symbol == "" {
					t.Fatalf("feed %s names %+v", fd.Symbol, fs)
				}
			}
		}
		if spec.Rules.MinSources < 1 || spec.Rules.MaxCarry <= 0 || len(spec.Rules.Sessions) == 0 {
			t.Fatalf("rules %+v", spec.Rules)
		}
	})
}

// TestShippedSpec checks the repository's sources.yaml: every source type, the three feeds in
// each provider's own symbols, the rules and the split table of the issue.
func TestShippedSpec(t *testing.T) {
	spec, err := Load(pricerig.DefaultSpec, LoadOptions{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	types := []string{"yahoo", "alpaca", "massive", "twelvedata", "alphavantage", "tiingo", "pyth", "finnhub", "fmp"}
	if len(spec.Sources) != len(types) {
		t.Fatalf("%d sources", len(spec.Sources))
	}
	for i, typ := range types {
		s := spec.Sources[i]
		if s.Type != typ || !strings.HasPrefix(s.BaseURL, "https://") {
			t.Errorf("source %d: %s %s", i, s.Type, s.BaseURL)
		}
		if typ != "yahoo" && (s.KeyEnv == "" || s.Usable()) {
			t.Errorf("%s: keyed sources read their key from the environment (key_env %q)", s.Name, s.KeyEnv)
		}
	}
	if len(spec.Warnings) != len(types)-1 {
		t.Errorf("%d warnings, want one per keyed source", len(spec.Warnings))
	}
	for _, symbol := range []string{"NVDA", "TSLA", "SPY"} {
		f, ok := spec.Feed(symbol)
		if !ok || len(f.Sources) != len(types) {
			t.Fatalf("feed %s: %+v", symbol, f)
		}
		for _, fs := range f.Sources {
			want := symbol
			if fs.Source == "pyth" {
				want = "Equity.US." + symbol + "/USD"
			}
			if fs.Symbol != want {
				t.Errorf("%s/%s: %q, want %q", symbol, fs.Source, fs.Symbol, want)
			}
		}
	}
	r := spec.Rules
	if !sameJob(spec.Job, DefaultJob()) || r.MinSources != 2 || r.OutlierBps != 25 || r.MaxCarry != 96*time.Hour ||
		len(r.Sessions) != 3 || r.Sessions[0] != market.Pre || r.Deadline <= 0 || spec.SpecURI == "" {
		t.Errorf("job %+v rules %+v spec_uri %q", spec.Job, r, spec.SpecURI)
	}
	if spec.RefusalAnswer == nil || *spec.RefusalAnswer != 0 {
		t.Errorf("the shipped spec answers refused tasks 0, got %v", spec.RefusalAnswer)
	}
	got := map[string]string{}
	for sym, list := range spec.Splits {
		for _, s := range list {
			got[sym+" "+s.Date.Format(time.DateOnly)] = fmt.Sprint(s.Ratio)
		}
	}
	want := map[string]string{"NVDA 2024-06-10": "10", "NVDA 2021-07-20": "4", "TSLA 2022-08-25": "3", "TSLA 2020-08-31": "5"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("splits %v, want %v", got, want)
	}
}

// TestShippedSpecExamples uncomments the udf and json examples of sources.yaml: they must load as
// written, so a user who copies them starts from something that works.
func TestShippedSpecExamples(t *testing.T) {
	var out []string
	inExample := false
	for _, line := range strings.Split(string(pricerig.DefaultSpec), "\n") {
		switch {
		case strings.HasPrefix(line, "  # myudf:"), strings.HasPrefix(line, "  # myjson:"):
			inExample = true
		case !strings.HasPrefix(line, "  #"):
			inExample = false
		}
		if inExample {
			line = "  " + strings.TrimPrefix(line, "  # ")
		}
		out = append(out, line)
	}
	spec, err := Load([]byte(strings.Join(out, "\n")), LoadOptions{Getenv: env(map[string]string{"MYUDF_TOKEN": "t", "MYJSON_KEY": "k"})})
	if err != nil {
		t.Fatal(err)
	}
	udf, ok1 := spec.Source("myudf")
	js, ok2 := spec.Source("myjson")
	if !ok1 || !ok2 || udf.Type != "udf" || js.Type != "json" || !udf.Usable() || !js.Usable() {
		t.Fatalf("examples: %+v %+v", udf, js)
	}
	if len(udf.Coverage.Sessions) != 3 || udf.Coverage.MaxWindow != 7*24*time.Hour || js.Coverage.Sessions[0] != market.Regular {
		t.Errorf("coverage udf %+v json %+v", udf.Coverage, js.Coverage)
	}
}

// retries: 0 in sources.yaml means no retry; a source without the key keeps the client's
// default.
func TestLoadRetriesZeroMeansNone(t *testing.T) {
	text := strings.Replace(goodSpec, "retries: 1", "retries: 0", 1)
	spec, err := Load([]byte(text), LoadOptions{Getenv: env(map[string]string{"KEYED_ID": "id-1", "KEYED_SECRET": "s3cret"})})
	if err != nil {
		t.Fatal(err)
	}
	if plain, keyed := spec.Sources[0], spec.Sources[1]; plain.Retries != sources.NoRetries || keyed.Retries != 0 {
		t.Errorf("retries %d and %d, want %d (none) and 0 (the default)", plain.Retries, keyed.Retries, sources.NoRetries)
	}
}

// TestFinalAfterReachesTheSourcesCoverage: final_after in sources.yaml is what the built
// source's coverage says (and so what the reconciler waits for); 0 trusts a bar when its minute
// ends; an unset one is the type's documented default.
func TestFinalAfterReachesTheSourcesCoverage(t *testing.T) {
	const text = `version: 1
sources:
  a: {type: yahoo, base_url: http://a}
  b: {type: yahoo, base_url: http://b, final_after: 0}
  c: {type: yahoo, base_url: http://c, final_after: 90s}
feeds: {NVDA: {a: NVDA, b: NVDA, c: NVDA}}
`
	spec, err := Load([]byte(text), LoadOptions{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	yahoo, _ := sources.Lookup("yahoo")
	for name, want := range map[string]time.Duration{"a": yahoo.FinalAfter, "b": 0, "c": 90 * time.Second} {
		s, _ := spec.Source(name)
		if s.Coverage.FinalAfter != want {
			t.Errorf("%s: coverage final_after %v, want %v", name, s.Coverage.FinalAfter, want)
		}
		src, err := BuildSource(s, sources.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.Coverage().FinalAfter; got != want {
			t.Errorf("%s built: final_after %v, want %v", name, got, want)
		}
	}
	if yahoo.FinalAfter <= 0 {
		t.Errorf("yahoo's default final_after is %v", yahoo.FinalAfter)
	}
}
