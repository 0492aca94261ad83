package feeds

// The loader's sources: block: each source checked by its type's Factory.

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/pricerig/pricerig/sources"
)

var commonSourceKeys = []string{"type", "base_url", "key_env", "secret_env", "rate", "quota", "timeout", "retries", "final_after"}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	envRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	symbolRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:=^-]{0,63}$`)
)

func (l *loader) sources(n ast.Node, declared map[string]bool) []SourceSpec {
	entries, ok := l.mapping(n, "sources")
	if ok && len(entries) == 0 {
		l.errorf(n, "sources", "no sources")
	}
	var out []SourceSpec
	for _, e := range entries {
		declared[e.key] = true
		if src, ok := l.source(e); ok {
			out = append(out, src)
		}
	}
	return out
}

func (l *loader) source(e entry) (SourceSpec, bool) {
	path := join("sources", e.key)
	if !nameRE.MatchString(e.key) {
		l.errorf(e.node, path, "a source name is a letter then letters, digits, - or _ (at most 64)")
		return SourceSpec{}, false
	}
	entries, ok := l.mapping(e.value, path)
	if !ok {
		return SourceSpec{}, false
	}
	factory, ok := l.sourceType(e, path, entries)
	if !ok {
		return SourceSpec{}, false
	}
	src := SourceSpec{Settings: sources.Settings{Name: e.key, Type: factory.Type, Options: map[string]string{}}, Line: lineOf(e.node)}
	src.NeedsKey, src.NeedsSecret = factory.NeedsKey, factory.NeedsSecret
	good, optionLines := l.sourceKeys(entries, path, factory, &src)
	for _, req := range factory.Required {
		if _, set := src.Options[req]; !set {
			l.errorf(e.node, join(path, req), "missing (type %s requires it: %s)", src.Type, factory.Options[req])
			good = false
		}
	}
	if factory.NeedsKey && src.KeyEnv == "" {
		l.errorf(e.node, join(path, "key_env"), "missing: type %s needs a key; name the environment variable that holds it", src.Type)
		good = false
	}
	if factory.NeedsSecret && src.SecretEnv == "" {
		l.errorf(e.node, join(path, "secret_env"), "missing: type %s needs a secret; name the environment variable that holds it", src.Type)
		good = false
	}
	if src.Rate.IsZero() {
		src.Rate = factory.DefaultRate
	}
	src.Quota = src.Quota.Or(factory.DefaultQuota)
	l.resolve(&src)
	if src.BaseURL == "" {
		l.errorf(e.node, join(path, "base_url"), "missing")
		good = false
	}
	if !good {
		return SourceSpec{}, false
	}
	return l.trial(e, path, factory, src, optionLines)
}

// sourceType reads a source's type: and returns the factory registered for it.
func (l *loader) sourceType(e entry, path string, entries []entry) (sources.Factory, bool) {
	var typeEntry *entry
	for i := range entries {
		if entries[i].key == "type" {
			typeEntry = &entries[i]
		}
	}
	if typeEntry == nil {
		l.errorf(e.node, join(path, "type"), "missing (one of %s)", knownTypes())
		return sources.Factory{}, false
	}
	typ, ok := l.str(typeEntry.value, join(path, "type"))
	if !ok {
		return sources.Factory{}, false
	}
	factory, known := sources.Lookup(typ)
	if !known {
		l.errorf(typeEntry.value, join(path, "type"), "unknown source type %q (known: %s)", typ, knownTypes())
		return sources.Factory{}, false
	}
	factory.Type = typ // a factory registered under a test's name may not repeat it
	return factory, true
}

// sourceKeys reads a source's keys into src: the keys every source has, and the options its
// type declares. It reports whether all were good, and the node of each option (an option's
// error, found when the source is built, points at it).
func (l *loader) sourceKeys(entries []entry, path string, factory sources.Factory, src *SourceSpec) (bool, map[string]ast.Node) {
	good := true
	optionLines := map[string]ast.Node{}
	for _, kv := range entries {
		kpath := join(path, kv.key)
		switch kv.key {
		case "type":
		case "base_url":
			s, ok := l.str(kv.value, kpath)
			if ok {
				if err := checkBaseURL(s); err != nil {
					l.errorf(kv.value, kpath, "%v", err)
					ok = false
				}
			}
			good = good && ok
			src.BaseURL = s
		case "key_env", "secret_env":
			s, ok := l.str(kv.value, kpath)
			if ok && !envRE.MatchString(s) {
				l.errorf(kv.value, kpath, "%q is not an environment variable name (the key itself never goes in the file)", s)
				ok = false
			}
			good = good && ok
			if kv.key == "key_env" {
				src.KeyEnv = s
			} else {
				src.SecretEnv = s
			}
		case "rate":
			s, ok := l.scalar(kv.value, kpath)
			if ok {
				r, err := sources.ParseRate(s)
				if err != nil {
					l.errorf(kv.value, kpath, "%v", err)
					ok = false
				}
				src.Rate = r
			}
			good = good && ok
		case "quota":
			q, ok := l.quota(kv.value, kpath)
			good = good && ok
			src.Quota = q
		case "timeout":
			d, ok := l.duration(kv.value, kpath, 10*time.Minute)
			good = good && ok
			src.Timeout = d
		case "retries":
			v, ok := l.integer(kv.value, kpath, 0, 10)
			good = good && ok
			src.Retries = int(v)
			if v == 0 {
				src.Retries = sources.NoRetries // written 0 means none; absent keeps the default
			}
		case "final_after":
			d, ok := l.finalAfter(kv.value, kpath)
			good = good && ok
			src.FinalAfter = d
		default:
			if _, isOption := factory.Options[kv.key]; !isOption {
				l.errorf(kv.node, kpath, "unknown key for type %s (want %s)", factory.Type, strings.Join(allowedKeys(factory), ", "))
				good = false
				continue
			}
			vals, ok := l.list(kv.value, kpath)
			good = good && ok
			src.Options[kv.key] = strings.Join(vals, ",")
			optionLines[kv.key] = kv.value
		}
	}
	return good, optionLines
}

// maxFinalAfter bounds final_after: a provider whose bars settle later than a day is a daily
// provider, which the delay option describes.
const maxFinalAfter = 24 * time.Hour

// finalAfter reads final_after: a duration from 0 (the bar is final when its minute ends, which
// is FinalAtClose: an unset value means the type's default) to maxFinalAfter.
func (l *loader) finalAfter(n ast.Node, path string) (time.Duration, bool) {
	s, ok := l.scalar(n, path)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		l.errorf(n, path, "duration %q: want a Go duration like 35s or 15m (0: final when the minute ends)", s)
		return 0, false
	}
	if d < 0 || d > maxFinalAfter {
		l.errorf(n, path, "duration %s: must be at least 0 and at most %s", d, maxFinalAfter)
		return 0, false
	}
	if d == 0 {
		return sources.FinalAtClose, true
	}
	return d, true
}

// trial builds the source once, with no network, to let its type check its options and say
// what it covers. Placeholders stand in for unset secrets: the built source is dropped here.
func (l *loader) trial(e entry, path string, factory sources.Factory, src SourceSpec, optionLines map[string]ast.Node) (SourceSpec, bool) {
	trial := src.Settings
	trial.Options = maps.Clone(src.Options)
	if src.Missing != "" {
		trial.Key, trial.Secret = "unset", "unset"
	}
	built, err := factory.New(trial, sources.Deps{})
	if err != nil {
		at, key := e.node, path
		msg := err.Error()
		var oe *sources.OptionError
		if errors.As(err, &oe) {
			if node, ok := optionLines[oe.Key]; ok {
				at, key, msg = node, join(path, oe.Key), oe.Msg // the location names the key
			}
		}
		l.errorf(at, key, "%s", msg)
		return SourceSpec{}, false
	}
	src.Coverage = built.Coverage()
	if src.Missing != "" {
		l.warnf(e.node, path, "%s; the source is skipped", src.Missing)
	}
	return src, true
}

// quota reads quota: one limit (25/day) or several (50/hour, 1000/day), or none.
func (l *loader) quota(n ast.Node, path string) (sources.Quota, bool) {
	s, ok := l.scalar(n, path)
	if !ok {
		return nil, false
	}
	q, err := sources.ParseQuota(s)
	if err != nil {
		l.errorf(n, path, "%v", err)
		return nil, false
	}
	return q, true
}

// resolve applies the overrides and reads the secrets.
func (l *loader) resolve(src *SourceSpec) {
	if u, ok := l.opts.BaseURLs[src.Type]; ok {
		src.BaseURL = u
	}
	if u, ok := l.opts.BaseURLs[src.Name]; ok {
		src.BaseURL = u
	}
	if sim := l.opts.Sim; sim != nil {
		src.BaseURL = strings.TrimRight(sim.Root, "/") + "/" + src.Type
		if sim.Instant {
			src.FinalAfter = sources.FinalAtClose
		}
		if src.KeyEnv != "" || src.NeedsKey {
			src.Key = sim.Key
		}
		if src.SecretEnv != "" || src.NeedsSecret {
			src.Secret = sim.Secret
		}
		return
	}
	var missing []string
	if src.KeyEnv != "" {
		src.Key = l.opts.Getenv(src.KeyEnv)
		if src.Key == "" {
			missing = append(missing, src.KeyEnv)
		}
	}
	if src.SecretEnv != "" {
		src.Secret = l.opts.Getenv(src.SecretEnv)
		if src.Secret == "" {
			missing = append(missing, src.SecretEnv)
		}
	}
	switch len(missing) {
	case 1:
		src.Missing = missing[0] + " is not set"
	case 2:
		src.Missing = missing[0] + " and " + missing[1] + " are not set"
	}
}

// knownTypes lists the registered source types for a problem's text. The program registers
// them by importing their packages (cmd/pricerig links sources/all); none means it linked none.
func knownTypes() string {
	if t := sources.Types(); len(t) > 0 {
		return strings.Join(t, ", ")
	}
	return "none: this program links no source adapter"
}

func allowedKeys(f sources.Factory) []string {
	keys := slices.Clone(commonSourceKeys)
	opts := make([]string, 0, len(f.Options))
	for k := range f.Options {
		opts = append(opts, k)
	}
	sort.Strings(opts)
	return append(keys, opts...)
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("base_url %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base_url %q: want an http:// or https:// URL", s)
	}
	if u.User != nil {
		return fmt.Errorf("base_url %q: credentials do not go in a URL; use key_env", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("base_url %q: no query or fragment; keys come from key_env", s)
	}
	return nil
}
