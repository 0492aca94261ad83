package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addProfileFlag gives every command a hidden --cpuprofile FILE: a CPU profile of the whole
// command (for `go tool pprof`), which is how the backfill's and the export's costs in
// BENCHMARKS.md were found. The returned stop ends the profile; run calls it however the
// command ended.
func addProfileFlag(root *cobra.Command) (stop func()) {
	var path string
	var f *os.File
	root.PersistentFlags().StringVar(&path, "cpuprofile", "", "write a CPU profile of the command to FILE")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if path == "" {
			return nil
		}
		var err error
		if f, err = os.Create(path); err != nil {
			return badInput("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			f = nil
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}
	return func() {
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
			f = nil
		}
	}
}
