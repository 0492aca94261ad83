package main

// The backfill's progress display: bars on a terminal, log lines otherwise.

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/pricerig/pricerig/feeds/backfill"
	"github.com/pricerig/pricerig/redact"
)

// progressInterval is how often progress is logged when stderr is not a terminal.
var progressInterval = 10 * time.Second

// progressMode resolves --progress: auto draws bars when stderr is a terminal.
func progressMode(flag string, stderr io.Writer) (string, error) {
	switch flag {
	case "bar", "log", "off":
		return flag, nil
	case "auto", "":
		if f, ok := redact.Underlying(stderr).(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
			return "bar", nil
		}
		return "log", nil
	}
	return "", fmt.Errorf("%q is not auto, bar, log or off", flag)
}

// watchProgress shows the run's progress until stop closes: bars redrawn five times a second,
// or a log line per source every progressInterval.
func watchProgress(b *backfill.Backfill, mode string, show *barDisplay, logger *slog.Logger, stop <-chan struct{}) {
	if mode == "off" {
		<-stop
		return
	}
	every := progressInterval
	if mode == "bar" {
		every = 200 * time.Millisecond
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			if show != nil {
				show.draw(b.Progress())
				show.finish()
			}
			return
		case <-tick.C:
			p := b.Progress()
			if show != nil {
				show.draw(p)
				continue
			}
			logProgress(logger, p)
		}
	}
}

func logProgress(logger *slog.Logger, p backfill.Progress) {
	if p.Phase == "reconcile" {
		logger.Info("backfill progress", "phase", p.Phase, "minutes", fmt.Sprintf("%d/%d", p.Minutes, p.MinutesTotal))
		return
	}
	for _, s := range p.Sources {
		if s.Finished && s.Done+s.Failed == s.Windows {
			continue
		}
		logger.Info("backfill progress", "phase", p.Phase, "source", s.Source, "windows", fmt.Sprintf("%d/%d", s.Done, s.Windows),
			"failed", s.Failed, "bars", s.Bars, "requests", s.Requests, "rate_limited", s.RateLimited, "eta", s.ETA.Round(time.Second).String())
	}
}

// barDisplay draws one progress bar per source (and one for the reconcile) on a terminal,
// redrawing them in place; log lines written through it print above the bars.
type barDisplay struct {
	w     io.Writer
	mu    sync.Mutex
	bars  map[string]*progressbar.ProgressBar
	lines []string // what is on screen
}

func newBarDisplay(w io.Writer) *barDisplay {
	return &barDisplay{w: w, bars: map[string]*progressbar.ProgressBar{}}
}

func (d *barDisplay) bar(name string, total int64) *progressbar.ProgressBar {
	pb, ok := d.bars[name]
	if !ok {
		pb = progressbar.NewOptions64(max(total, 1),
			progressbar.OptionSetWriter(io.Discard), // this display writes the lines itself
			progressbar.OptionSetDescription(fmt.Sprintf("%-13s", name)),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false), // our ETA knows the rate-limit waits
			progressbar.OptionSetElapsedTime(false),
			progressbar.OptionSetWidth(28),
			progressbar.OptionThrottle(0),
			progressbar.OptionSetRenderBlankState(true),
		)
		d.bars[name] = pb
	}
	if total > 0 && pb.GetMax64() != total {
		pb.ChangeMax64(total)
	}
	return pb
}

// draw replaces the bars on screen with the state of p.
func (d *barDisplay) draw(p backfill.Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var lines []string
	for _, s := range p.Sources {
		pb := d.bar(s.Source, int64(s.Windows))
		_ = pb.Set64(int64(s.Done + s.Failed))
		extra := fmt.Sprintf("%d bars, %d requests", s.Bars, s.Requests)
		if s.Failed > 0 {
			extra += fmt.Sprintf(", %d failed", s.Failed)
		}
		if s.RateLimited > 0 {
			extra += fmt.Sprintf(", %d×429", s.RateLimited)
		}
		switch {
		case s.Waiting > 0:
			extra += fmt.Sprintf(", waiting %s for the rate limit", s.Waiting.Round(time.Second))
		case s.ETA > 0:
			extra += ", ETA " + s.ETA.Round(time.Second).String()
		}
		lines = append(lines, strings.TrimPrefix(pb.String(), "\r")+extra)
	}
	if p.MinutesTotal > 0 {
		pb := d.bar("reconcile", p.MinutesTotal)
		_ = pb.Set64(p.Minutes)
		lines = append(lines, strings.TrimPrefix(pb.String(), "\r")+"minutes")
	}
	d.redraw(lines)
}

// redraw moves the cursor up over the old lines, clears them and prints the new ones.
func (d *barDisplay) redraw(lines []string) {
	var sb strings.Builder
	d.clear(&sb)
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteString("\n")
	}
	d.lines = lines
	io.WriteString(d.w, sb.String())
}

func (d *barDisplay) clear(sb *strings.Builder) {
	if n := len(d.lines); n > 0 {
		fmt.Fprintf(sb, "\033[%dA", n)
		for range n {
			sb.WriteString("\033[2K\n")
		}
		fmt.Fprintf(sb, "\033[%dA", n)
	}
}

// Write prints a log line above the bars.
func (d *barDisplay) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var sb strings.Builder
	d.clear(&sb)
	sb.Write(p)
	for _, l := range d.lines {
		sb.WriteString(l)
		sb.WriteString("\n")
	}
	_, err := io.WriteString(d.w, sb.String())
	return len(p), err
}

// finish leaves the last bars on screen.
func (d *barDisplay) finish() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lines = nil
}
