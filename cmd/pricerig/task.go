package main

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/rig"
)

func init() { register(newTaskCmd) }

// taskOutput is the JSON `pricerig task` prints.
type taskOutput struct {
	OK        bool   `json:"ok"`
	Symbol    string `json:"symbol,omitempty"`
	Minute    string `json:"minute,omitempty"`
	InputHash string `json:"input_hash"`
	Error     string `json:"error,omitempty"`
}

func newTaskCmd(a *app) *cobra.Command {
	var uri, hash string
	var symbols []string
	cmd := &cobra.Command{
		Use:   "task --input-uri URI [--input-hash 0x…]",
		Short: "Decode and check a job-2 task input the way the rig does",
		Long: `Decode a task's input URI exactly as the rig does before answering it, and print the result
as JSON: {"ok", "symbol", "minute", "input_hash", "error"}.

The input is JSON in a data URI (data:application/json,{...}, plain, percent-encoded or ;base64)
holding exactly {"symbol": S, "minute": M}, M an RFC 3339 time or unix seconds on a whole UTC
minute. input_hash is keccak256 of the whole URI string; with --input-hash (the hash the order
carries) it must match. The rig never fetches a URI: anything but a data URI is refused.

Exit 0 when the input is good; exit 2, still printing the JSON, when it is not.`,
		Example: `  pricerig task --input-uri 'data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}'`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules := rig.InputRules{Symbols: symbols}
			out := taskOutput{InputHash: rig.InputHash(uri).Hex()}
			var in rig.Input
			var err error
			if cmd.Flags().Changed("input-hash") {
				want, perr := parseHash32("--input-hash", hash)
				if perr != nil {
					return perr
				}
				in, err = rules.Decode(uri, common.Hash(want))
			} else {
				in, err = rules.Parse(uri)
			}
			if err == nil {
				out.OK, out.Symbol, out.Minute = true, in.Symbol, in.Minute.UTC().Format(time.RFC3339)
			} else {
				out.Error = err.Error()
			}
			if werr := json.NewEncoder(a.stdout).Encode(out); werr != nil {
				return werr
			}
			if err != nil {
				return badInput("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&uri, "input-uri", "", "the task's input URI (required)")
	cmd.Flags().StringVar(&hash, "input-hash", "", "the inputHash the order carries, 0x plus 64 hex digits")
	cmd.Flags().StringSliceVar(&symbols, "symbols", nil, "accepted symbols (default "+strings.Join(rig.DefaultSymbols, ",")+")")
	_ = cmd.MarkFlagRequired("input-uri")
	return cmd
}
