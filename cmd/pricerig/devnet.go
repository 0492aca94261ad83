package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/files"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/devnet"
)

func init() { register(newDevnetCmd) }

type devnetOutput struct {
	RPC      string               `json:"rpc"`
	ChainID  int                  `json:"chain_id"`
	Contract string               `json:"contract"`
	Sim      string               `json:"sim"`
	Minute   string               `json:"minute"`
	Tasks    []devnet.TaskReport  `json:"tasks"`
	Agreed   bool                 `json:"agreed"`
	Elapsed  int64                `json:"elapsed_ms"`
	Rigs     []devnetRigProcessJS `json:"rig_processes"`
}

type devnetRigProcessJS struct {
	Rigs    []uint64 `json:"rigs"`
	Relayed bool     `json:"relayed"`
}

func newDevnetCmd(a *app) *cobra.Command {
	var (
		config    string
		symbols   []string
		minute    string
		keep      bool
		asJSON    bool
		verbose   bool
		noRelayer bool
		timeout   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "devnet",
		Short: "Run the whole life of job-2 tasks offline: chain, contract, simulator, three rigs",
		Long: `Run AgentRig job 2 end to end on this machine, with nothing from outside:

  - go-ethereum's simulated chain, served over JSON-RPC on 127.0.0.1;
  - the reference AgentRig contract, with the seed's three launch jobs published
    (job 2: NUMERIC, 0.50 %, quorum 3, price and slash 0.00001 ETH);
  - the provider simulator (every quote source's real wire format over one tape);
  - three rig processes with distinct operator keys attached over JSON-RPC, the last one
    relayed (its operator signs EIP-712 commits and reveals, a relayer sends them);
  - an orderer that orders one task per symbol at a recent minute.

Each task's life is printed as it happens. Exits 0 when every task agreed, 1 otherwise.
With --keep the chain and the simulator stay up after the tasks settle, and the RPC URL,
the contract address and a funded key are printed so a separate 'pricerig rig' can attach.`,
		Example: `  pricerig devnet
  pricerig devnet --symbols NVDA --minute 2026-11-27T15:30Z
  pricerig devnet --keep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, specName, err := specSource(config)
			if err != nil {
				return badInput("%v", err)
			}
			var at time.Time
			if minute != "" {
				if at, err = feeds.ParseMinute(minute); err != nil {
					return badInput("--minute: %v", err)
				}
			}
			for i, s := range symbols {
				symbols[i] = strings.ToUpper(strings.TrimSpace(s))
			}
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelInfo
			}
			logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			start := time.Now()
			labels := map[uint64]string{}
			out := a.stdout
			events := func(e devnet.Event) {
				if asJSON {
					return
				}
				line := fmt.Sprintf("%6.1fs  task %d %-5s %s", time.Since(start).Seconds(), e.TaskID, labels[e.TaskID], e.Phase)
				if e.Detail != "" && e.Phase != "ordered" {
					line += "  " + e.Detail
				}
				fmt.Fprintln(out, line)
			}
			d, err := devnet.Start(ctx, devnet.Options{Spec: spec, Logger: logger, Events: events, NoRelayer: noRelayer})
			if err != nil {
				return failed("devnet: %v", err)
			}
			defer d.Close()
			if at.IsZero() {
				at = devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions)
			}
			if !asJSON {
				fmt.Fprintf(out, "devnet: chain %s (chain id %d), AgentRig %s\n", d.Chain.URL, devnet.ChainID, d.Contract.Hex())
				fmt.Fprintf(out, "devnet: provider simulator %s, spec %s (%s)\n", d.SimURL, d.Spec.SpecURI, specName)
				for i, r := range d.Runners {
					mode := "direct"
					if i == len(d.Runners)-1 && !noRelayer {
						mode = "relayed"
					}
					fmt.Fprintf(out, "devnet: rig process %d: rig %v, %s\n", i+1, r.RigIDs(), mode)
				}
				fmt.Fprintf(out, "devnet: ordering job 2 for %s at %s\n", strings.Join(symbols, ", "), at.Format(time.RFC3339))
			}
			ids, err := d.Order(ctx, symbols, at)
			if err != nil {
				return failed("devnet: %v", err)
			}
			for i, id := range ids {
				labels[id] = symbols[i]
			}
			reports, err := d.Wait(ctx, ids)
			if err != nil {
				return failed("devnet: %v", err)
			}
			allAgreed := true
			for _, r := range reports {
				allAgreed = allAgreed && r.Agreed
			}
			elapsed := time.Since(start)
			if asJSON {
				res := devnetOutput{RPC: d.Chain.URL, ChainID: devnet.ChainID, Contract: d.Contract.Hex(), Sim: d.SimURL,
					Minute: at.Format(time.RFC3339), Tasks: reports, Agreed: allAgreed, Elapsed: elapsed.Milliseconds()}
				for i, r := range d.Runners {
					res.Rigs = append(res.Rigs, devnetRigProcessJS{Rigs: r.RigIDs(), Relayed: i == len(d.Runners)-1 && !noRelayer})
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				printDevnetReports(out, reports, labels)
				verdict := "every task agreed"
				if !allAgreed {
					verdict = "NOT every task agreed"
				}
				fmt.Fprintf(out, "devnet: %s in %.1fs\n", verdict, elapsed.Seconds())
			}
			if keep {
				key := d.Funded
				fmt.Fprintf(a.stderr, "\ndevnet: kept up until Ctrl-C\n  rpc:       %s\n  contract:  %s\n  simulator: %s\n  funded key (%s): %s\n  e.g. PRICERIG_DEV_KEY=%s pricerig rig --rpc %s --contract %s --key-env PRICERIG_DEV_KEY --sim %s --journal /tmp/rig.db\n",
					d.Chain.URL, d.Contract.Hex(), d.SimURL, crypto.PubkeyToAddress(key.PublicKey).Hex(), hex.EncodeToString(crypto.FromECDSA(key)),
					hex.EncodeToString(crypto.FromECDSA(key)), d.Chain.URL, d.Contract.Hex(), d.SimURL)
				<-cmd.Context().Done()
			}
			if !allAgreed {
				return failed("not every task agreed")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "the spec the rigs answer to (default ./sources.yaml if it exists, else the one built in)")
	cmd.Flags().StringSliceVar(&symbols, "symbols", []string{"NVDA", "TSLA", "SPY"}, "one task per symbol")
	cmd.Flags().StringVar(&minute, "minute", "", "the UTC minute every task prices (default: the last closed minute inside the spec's sessions)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the chain and the simulator up after the tasks settle")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of the life of each task")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log what every rig does (to stderr)")
	cmd.Flags().BoolVar(&noRelayer, "no-relayer", false, "every rig sends its own transactions")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "give up when the tasks have not settled by then")
	return cmd
}

// specSource returns the bytes of the spec a command runs on: the file named, else
// ./sources.yaml, else the built-in one, with a name for messages.
func specSource(config string) ([]byte, string, error) {
	path := config
	if path == "" && specFileExists(feeds.DefaultFile) {
		path = feeds.DefaultFile
	}
	if path == "" {
		return pricerig.DefaultSpec, "built in", nil
	}
	b, err := files.Read(path, files.MaxSpec)
	if err != nil {
		return nil, "", err
	}
	return b, path, nil
}

func printDevnetReports(w interface{ Write([]byte) (int, error) }, reports []devnet.TaskReport, labels map[uint64]string) {
	fmt.Fprintln(w)
	for _, r := range reports {
		state := "agreed"
		if !r.Agreed {
			state = "NOT agreed"
		}
		fmt.Fprintf(w, "task %d %-5s %s: answer %s (%d of %d revealed answers inside 0.50%%)\n", r.TaskID, labels[r.TaskID], state, r.Answer, r.Agree, r.Reveals)
		for _, rr := range r.Rigs {
			verdict := "inside"
			if !rr.Inside {
				verdict = "OUTSIDE"
			}
			if rr.State != rig.StateSettled {
				verdict = string(rr.State)
			}
			fmt.Fprintf(w, "    rig %d  %-12s %7s bps from the median  %s\n", rr.RigID, rr.Price, rr.DistanceBps, verdict)
		}
	}
}
