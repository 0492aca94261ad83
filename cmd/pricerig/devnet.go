package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/files"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/web"
)

func init() { register(newDevnetCmd) }

type devnetOutput struct {
	RPC      string               `json:"rpc"`
	ChainID  uint64               `json:"chain_id"`
	Contract string               `json:"contract"`
	Sim      string               `json:"sim"`
	Minute   string               `json:"minute"`
	Tasks    []devnetTaskJS       `json:"tasks"`
	Agreed   bool                 `json:"agreed"`
	Elapsed  int64                `json:"elapsed_ms"`
	Rigs     []devnetRigProcessJS `json:"rig_processes"`
}

// devnetTaskJS is a devnet.TaskReport under snake_case keys, its phase by name.
type devnetTaskJS struct {
	TaskID  uint64        `json:"task_id"`
	Phase   string        `json:"phase"`
	Agreed  bool          `json:"agreed"`
	Answer  string        `json:"answer"`
	Agree   int           `json:"agree"`
	Reveals int           `json:"reveals"`
	Rigs    []devnetRigJS `json:"rigs"`
}

type devnetRigJS struct {
	RigID       uint64 `json:"rig_id"`
	Price       string `json:"price"`
	State       string `json:"state"`
	DistanceBps string `json:"distance_bps"`
	Inside      bool   `json:"inside"`
}

func devnetTasksJS(reports []devnet.TaskReport) []devnetTaskJS {
	out := make([]devnetTaskJS, len(reports))
	for i, r := range reports {
		t := devnetTaskJS{TaskID: r.TaskID, Phase: r.Phase.String(), Agreed: r.Agreed, Answer: r.Answer, Agree: r.Agree,
			Reveals: r.Reveals, Rigs: make([]devnetRigJS, len(r.Rigs))}
		for j, g := range r.Rigs {
			t.Rigs[j] = devnetRigJS{RigID: g.RigID, Price: g.Price, State: string(g.State), DistanceBps: g.DistanceBps, Inside: g.Inside}
		}
		out[i] = t
	}
	return out
}

type devnetRigProcessJS struct {
	Rigs    []uint64 `json:"rigs"`
	Relayed bool     `json:"relayed"`
}

func newDevnetCmd(a *app) *cobra.Command {
	var f devnetFlags
	cmd := &cobra.Command{
		Use:   "devnet",
		Short: "Run the whole life of job-2 tasks offline: chain, contract, simulator, three rigs",
		Long: `Run AgentRig job 2 end to end on this machine, with nothing from outside:

  - a go-ethereum node served over JSON-RPC on 127.0.0.1, its blocks sealed as Robinhood
    Chain's sequencer seals them;
  - the reference AgentRig contract, with the seed's three launch jobs published
    (job 2: NUMERIC, 0.50 %, quorum 3, price and slash 0.00001 ETH);
  - the provider simulator (every quote source's real wire format over one tape);
  - three rig processes (--rigs) with distinct operator keys attached over JSON-RPC, registered
    through the code of 'pricerig operator register'; the last one relayed (its operator signs
    EIP-712 commits and reveals, a relayer sends them);
  - an orderer that orders one task per symbol at a recent minute, through the code of
    'pricerig order'.

The chain's id is 4663, Robinhood Chain's, unless --chain-id says otherwise: a devnet signature
is exactly a mainnet one but for the contract address. Each task's life is printed as it
happens. Exits 0 when every task agreed, 1 otherwise. With fewer rigs than job 2's quorum (3)
nothing is ordered. With --keep the chain and the simulator stay up after the tasks settle,
and working 'pricerig operator', 'pricerig rig' and 'pricerig order' commands are printed for
funded keys that are in no rig.

Gas costs what Robinhood Chain charges: every transaction pays 0.01 gwei per gas (--base-fee),
under Ethereum's rules up to Osaka, plus Nitro's L1 part: the transaction's brotli-compressed
size in L1 units (16 a byte) at --l1-base-fee (0.015 gwei a unit; 0: none), turned into extra
gas (gasUsedForL1, inside the receipt's gasUsed), so 'operator status --journal' and 'audit
--journal' show what a rig would earn and pay there (rig/devnet/README.md).

The chain numbers its blocks as Robinhood Chain does: the contract's block.number is an L1
block number starting at --l1-block (21000000 by default: a young chain, whose own block
numbers stay far below L1's; 1: an old one, whose own numbers soon pass L1's) and moving every
--l1-interval; blocks and receipts carry Nitro's l1BlockNumber, "pending" is "latest", and a
block is sealed only for transactions (--heartbeat adds empty ones that often).

The simulated providers publish late and revise, as the real ones do (Yahoo serves the minute in
progress, Alpaca revises a bar 30 s after it, …; --lag, --revise and --instant as 'pricerig
sim' takes them), and the rigs wait, inside the commit window, until their sources' bars are
final: a task for the minute that just closed commits about a minute after it closed. When no
step came for a few seconds, the devnet says on stderr what each task waits for (final bars, a
window) and until when.

The rigs' journals and ledgers are in a temporary folder, removed on exit unless it holds files
the devnet did not make (your own rig's journal, pointed there by the printed 'pricerig rig'
command, then stays, with a line saying where); --dir chooses the folder, which is always kept.`,
		Example: `  pricerig devnet
  pricerig devnet --symbols NVDA --minute 2026-11-27T15:30Z
  pricerig devnet --keep
  pricerig devnet --keep --dir ./devnet              # journals and ledgers kept in ./devnet
  pricerig devnet --keep --rigs 0 --funded-keys 3   # a chain for your own operators
  pricerig devnet --keep --base-fee 1                # gas at 1 gwei
  pricerig devnet --keep --l1-base-fee 0             # no L1 part
  pricerig devnet --keep --l1-block 1 --l1-interval 2s   # an old chain, L1 every 2 s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDevnet(cmd.Context(), a, f) },
	}
	cmd.Flags().StringVar(&f.config, "config", "", "the spec `FILE` the rigs answer to (default ./sources.yaml if it exists, else the one built in)")
	cmd.Flags().StringSliceVar(&f.symbols, "symbols", []string{"NVDA", "TSLA", "SPY"}, "the `SYMBOLS` to order one task each for, comma-separated")
	cmd.Flags().StringVar(&f.minute, "minute", "", "the UTC minute every task prices (default: the last closed minute inside the spec's sessions)")
	cmd.Flags().BoolVar(&f.keep, "keep", false, "keep the chain and the simulator up after the tasks settle")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object instead of the life of each task")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "log what every rig does (to stderr)")
	cmd.Flags().BoolVar(&f.noRelayer, "no-relayer", false, "every rig sends its own transactions")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 5*time.Minute, "give up when the tasks have not settled by then")
	cmd.Flags().IntVar(&f.rigs, "rigs", 3, "rig processes of one rig each (0: a chain with the jobs and no rigs, for operators to register their own)")
	cmd.Flags().IntVar(&f.funded, "funded-keys", 1, "funded keys in no rig (1000 ETH each), printed with --keep")
	cmd.Flags().Uint64Var(&f.chainID, "chain-id", devnet.ChainID, "the chain id (Robinhood Chain's by default)")
	cmd.Flags().DurationVar(&f.commitWin, "commit-window", 0, "the contract's commit window (default the seed's 4m)")
	cmd.Flags().DurationVar(&f.revealWin, "reveal-window", 0, "the contract's reveal window (default the seed's 4m)")
	cmd.Flags().StringVar(&f.baseFee, "base-fee", "0.01", "every transaction's gas price for the whole run, in gwei (0.01: Robinhood Chain's)")
	cmd.Flags().StringVar(&f.l1BaseFee, "l1-base-fee", "0.015", "the L1 price of a poster unit (16 a compressed byte), in gwei, charged as gasUsedForL1 (0.015: Robinhood Chain's; 0: no L1 part)")
	cmd.Flags().Uint64Var(&f.l1Block, "l1-block", devnet.DefaultL1Block, "the L1 block number the chain starts at, its block.number (1: an old chain)")
	cmd.Flags().DurationVar(&f.l1Every, "l1-interval", devnet.DefaultL1Interval, "how often the L1 block number moves")
	cmd.Flags().DurationVar(&f.clockSkew, "clock-skew", 0, "the sequencer's clock this far behind the rigs' (it stamps the blocks): the lag a quiet reveal's margin must cover")
	cmd.Flags().DurationVar(&f.heartbeat, "heartbeat", 0, "seal an empty block this often while nothing is sent (0: only for transactions, as Robinhood Chain)")
	cmd.Flags().StringVar(&f.httpAddr, "http", "", "serve the operator's page of the devnet's rigs on this loopback address, like 127.0.0.1:9464 (with --keep it stays up)")
	cmd.Flags().BoolVar(&f.public, "http-public", false, "let --http bind a non-loopback address")
	cmd.Flags().BoolVar(&f.instant, "instant", false, "every simulated provider serves a bar final the moment its minute ends, and the rigs trust it then (then --lag and --revise)")
	cmd.Flags().StringArrayVar(&f.lags, "lag", nil, "PROVIDER=DURATION: the simulated provider serves each bar that long after its minute ends; PROVIDER may be all")
	cmd.Flags().StringVar(&f.dir, "dir", "", "the `FOLDER` for the rigs' journals and ledgers, made if missing and kept on exit (default: a temporary one, removed on exit unless it holds files the devnet did not make)")
	cmd.Flags().StringArrayVar(&f.revises, "revise", nil, "PROVIDER=DURATION: the simulated provider serves a provisional close until that long after the minute ends; PROVIDER may be all")
	return cmd
}

// devnetQuorum is job 2's quorum on the devnet (the seed's launch job).
const devnetQuorum = 3

// printKeep prints how to reach the kept devnet and commands that work as printed: register one
// of the funded keys as an operator, run its rig, order tasks, see its status, withdraw.
func printKeep(w io.Writer, d *devnet.Devnet, config string, minute time.Time) {
	chain := fmt.Sprintf("--network devnet --rpc %s --contract %s", d.Chain.URL, d.Contract.Hex())
	if d.ChainID != devnet.ChainID {
		chain += fmt.Sprintf(" --chain-id %d", d.ChainID)
	}
	spec := ""
	if config != "" {
		spec = " --config " + config
	}
	var journals []string
	for i := range d.Runners {
		journals = append(journals, "--journal "+d.JournalPath(i))
	}
	fmt.Fprintf(w, "\ndevnet: kept up until Ctrl-C\n  rpc:       %s\n  chain id:  %d\n  contract:  %s\n  simulator: %s\n", d.Chain.URL, d.ChainID, d.Contract.Hex(), d.SimURL)
	fmt.Fprintln(w, "  funded keys (1000 ETH each, in no rig):")
	for i, k := range d.FundedKeys {
		fmt.Fprintf(w, "    PRICERIG_DEV_KEY%d=%s   # %s\n", i+1, hex.EncodeToString(crypto.FromECDSA(k)), crypto.PubkeyToAddress(k.PublicKey).Hex())
	}
	// ./pricerig: the README's build step (go build -o pricerig ./cmd/pricerig) makes it there,
	// and the commands run as printed from the same directory
	fmt.Fprintf(w, "\n  Try it (in another shell, in the directory of the README's go build -o pricerig ./cmd/pricerig):\n")
	fmt.Fprintf(w, "    export PRICERIG_DEV_KEY=%s\n", hex.EncodeToString(crypto.FromECDSA(d.Funded)))
	fmt.Fprintf(w, "    ./pricerig operator register --job 2 --stake %s %s --key-env PRICERIG_DEV_KEY --yes%s\n", audit.FormatETH(d.Stake()), chain, spec)
	own := filepath.Join(d.Dir, "operator-rig.db")
	l1 := ""
	if d.Chain.L1 != nil && d.Chain.L1.Interval != devnet.DefaultL1Interval {
		l1 = " --l1-interval " + d.Chain.L1.Interval.String()
	}
	fmt.Fprintf(w, "    ./pricerig rig %s --key-env PRICERIG_DEV_KEY --sim %s --journal %s%s%s\n", chain, d.SimURL, own, spec, l1)
	fmt.Fprintf(w, "    ./pricerig order NVDA %s TSLA %s SPY %s --wait %s --key-env PRICERIG_DEV_KEY --yes%s%s %s\n",
		minute.Format(time.RFC3339), minute.Format(time.RFC3339), minute.Format(time.RFC3339), chain, spec, l1,
		strings.Join(append(journals, "--journal "+own), " "))
	fmt.Fprintf(w, "    ./pricerig operator status %s --key-env PRICERIG_DEV_KEY%s\n", chain, spec)
	fmt.Fprintf(w, "    ./pricerig operator withdraw %s --key-env PRICERIG_DEV_KEY --yes%s\n", chain, spec)
}

// serveDevnetPage serves the operator's page for every rig process of the devnet, each read
// from its own journal as a separate `pricerig rig --http` would.
func serveDevnetPage(ctx context.Context, d *devnet.Devnet, addr string, public bool, recorder *web.Recorder, logger *slog.Logger) (string, func(), error) {
	var procs []web.Process
	var journals []*journal.DBJournal
	closeAll := func() {
		for _, j := range journals {
			j.Close()
		}
	}
	for i, r := range d.Runners {
		j, err := journal.OpenJournal(d.JournalPath(i))
		if err != nil {
			closeAll()
			return "", nil, err
		}
		journals = append(journals, j)
		procs = append(procs, web.Process{Journal: j, RigIDs: r.RigIDs(), Relayer: d.RelayerOf(i)})
	}
	client, err := d.Chain.Dial(ctx)
	if err != nil {
		closeAll()
		return "", nil, err
	}
	l, err := web.Listen(addr, public)
	if err != nil {
		client.Close()
		closeAll()
		return "", nil, err
	}
	page := web.New(web.Options{Title: "pricerig devnet", Chain: client, ChainURL: d.Chain.URL, Contract: d.Contract,
		JobID: devnet.PriceJobID, Recorder: recorder, Processes: procs, Poll: 250 * time.Millisecond, Public: public, Logger: logger})
	url, stop := servePage(ctx, l, page, nil, logger)
	return url, func() {
		stop()
		client.Close()
		closeAll()
	}, nil
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
			if rr.State != journal.StateSettled {
				verdict = string(rr.State)
			}
			fmt.Fprintf(w, "    rig %d  %-12s %7s bps from the median  %s\n", rr.RigID, rr.Price, rr.DistanceBps, verdict)
		}
	}
}

// parseGweiOrZero is parseGwei that also takes zero (--l1-base-fee's "none").
func parseGweiOrZero(text string) (*big.Int, error) {
	if d, err := decimal.NewFromString(strings.TrimSpace(text)); err == nil && d.IsZero() {
		return new(big.Int), nil
	}
	return parseGwei(text)
}

// parseGwei reads a gas price in gwei as decimal text ("0.01") into wei, exactly: at least 1
// wei (a sealer takes no transaction tipping nothing), at most 9 decimals, at most 10,000 gwei.
func parseGwei(text string) (*big.Int, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(text))
	if err != nil || len(text) > 32 {
		return nil, fmt.Errorf("%q is not a gas price in gwei", text)
	}
	if e := d.Exponent(); e > 10 || e < -30 {
		return nil, fmt.Errorf("%q: out of range", text)
	}
	wei := d.Shift(9)
	if !wei.Equal(wei.Truncate(0)) {
		return nil, fmt.Errorf("%q: more decimals than wei (9 for gwei)", text)
	}
	if wei.Sign() <= 0 || d.GreaterThan(decimal.NewFromInt(10_000)) {
		return nil, fmt.Errorf("%q: want from 0.000000001 to 10000 gwei", text)
	}
	return wei.BigInt(), nil
}
