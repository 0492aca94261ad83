package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/rpcpool"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// chainFlags are the flags of every chain command: which network, through which node, which
// AgentRig deployment.
type chainFlags struct {
	network  string
	rpc      []string
	contract string
	chainID  uint64
	logger   *slog.Logger // the endpoints' pool logs to it (nil: discarded); the rig sets it
}

func (f *chainFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.network, "network", "robinhood", "the chain: "+strings.Join(agentrig.NetworkNames(), ", "))
	fl.StringArrayVar(&f.rpc, "rpc", nil, "JSON-RPC URL of a node; repeat it or give a comma-separated list for several endpoints: reads from the healthiest, transactions sent to all (default: networks.NAME.rpcs in the spec, else the network's public RPC; devnet has none)")
	fl.StringVar(&f.contract, "contract", "", "address of the AgentRig contract (default: networks.NAME.contract in the spec)")
	fl.Uint64Var(&f.chainID, "chain-id", 0, "the chain id the node must serve (default: the network's; a devnet started with --chain-id)")
}

// chainConn is a checked connection: the node serves the network's chain.
type chainConn struct {
	client   *ethclient.Client
	pool     *rpcpool.Pool // the endpoints, when there are several (nil for one)
	network  agentrig.Network
	chainID  *big.Int // as eth_chainId returned it: every transaction and EIP-712 domain uses it
	contract *agentrig.Contract
	rpcShown string // the RPC URLs with any key in them redacted, comma-separated
	rpcURL   string // the RPC URL as given when there is one, for finding its websocket endpoint
}

func (c *chainConn) Close() {
	c.client.Close()
	if c.pool != nil {
		c.pool.Close()
	}
}

// shownURL is text as every output prints it: the credentials of the RPC URL (registered by
// connect) and any secret-looking parameter redacted. The command's writers redact too; errors
// pass through it before they are wrapped, so a test's buffer sees the same.
func shownURL(raw string) string { return redact.String(raw) }

// resolve reads the flags: the network (its chain id replaced by --chain-id), the nodes' URLs
// (--rpc, else the spec's networks.NAME.rpcs, else the network's public RPC) and the contract
// (--contract, else the spec's networks.NAME.contract). From here on the URLs' credentials (a
// /v2/KEY path, user:pass@) never reach a log line or an error.
func (f *chainFlags) resolve(spec *feeds.Spec) (agentrig.Network, []string, common.Address, error) {
	var contract common.Address
	nw, err := agentrig.NetworkByName(f.network)
	if err != nil {
		return nw, nil, contract, badInput("--network: %v", err)
	}
	if f.chainID != 0 {
		nw.ChainID = f.chainID
	}
	if spec != nil && spec.Networks[nw.Name].Blocks != "" {
		nw.Blocks = spec.Networks[nw.Name].Blocks
	}
	urls := rpcList(f.rpc)
	if len(urls) == 0 && spec != nil {
		urls = spec.Networks[nw.Name].RPCs
	}
	if len(urls) == 0 && nw.RPC != "" {
		urls = []string{nw.RPC}
	}
	if len(urls) == 0 {
		return nw, nil, contract, badInput("--network %s has no public RPC: give --rpc (devnet prints it)", nw.Name)
	}
	switch {
	case f.contract != "":
		if !common.IsHexAddress(f.contract) {
			return nw, nil, contract, badInput("--contract %q is not an address", f.contract)
		}
		contract = common.HexToAddress(f.contract)
	case spec != nil && spec.Networks[nw.Name].Contract != "":
		contract = common.HexToAddress(spec.Networks[nw.Name].Contract)
	default:
		return nw, nil, contract, badInput("no AgentRig address for network %s: give --contract or set networks.%s.contract in the spec", nw.Name, nw.Name)
	}
	for _, u := range urls {
		redact.Register(redact.URLSecrets(u)...)
	}
	return nw, urls, contract, nil
}

// connect resolves the flags, dials the node, checks eth_chainId first (exit 2 on a mismatch)
// and binds the contract.
func (f *chainFlags) connect(ctx context.Context, spec *feeds.Spec) (*chainConn, error) {
	nw, urls, contract, err := f.resolve(spec)
	if err != nil {
		return nil, err
	}
	shown := shownRPCs(urls)
	client, pool, err := dialRPCs(ctx, urls, nw.ChainID, f.logger)
	if err != nil {
		return nil, failed("rpc %s: %s", shown, shownURL(err.Error()))
	}
	conn := &chainConn{client: client, pool: pool, network: nw, contract: agentrig.NewContract(client, contract), rpcShown: shown}
	if len(urls) == 1 {
		conn.rpcURL = urls[0]
	}
	id, err := agentrig.CheckChain(ctx, client, nw.ChainID)
	if err != nil {
		conn.Close()
		if errors.Is(err, agentrig.ErrWrongChain) {
			return nil, badInput("rpc %s: %v: it is not %s (chain id %d); nothing was done", shown, err, nw.Name, nw.ChainID)
		}
		return nil, failed("rpc %s: %s", shown, shownURL(err.Error()))
	}
	conn.chainID = id
	return conn, nil
}

// keyFlags choose the sending key, as `pricerig rig` does: a keystore and its password, or a hex
// key in an environment variable.
type keyFlags struct {
	keystore     string
	passwordFile string
	passwordEnv  string
	keyEnv       string
	from         string
}

func (f *keyFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.keystore, "keystore", "", "go-ethereum keystore directory holding the key")
	fl.StringVar(&f.passwordFile, "password-file", "", "file holding the keystore password")
	fl.StringVar(&f.passwordEnv, "password-env", "PRICERIG_KEYSTORE_PASSWORD", "variable holding the keystore password, when no --password-file")
	fl.StringVar(&f.keyEnv, "key-env", "", "variable holding the hex private key, for development")
	fl.StringVar(&f.from, "from", "", "the address to use when the keystore holds several keys")
}

// load returns the one key the command sends from.
func (f *keyFlags) load() (task.Key, error) {
	if (f.keystore == "") == (f.keyEnv == "") {
		return task.Key{}, badInput("give the key with either --keystore DIR or --key-env VAR")
	}
	if f.keyEnv != "" {
		k, err := task.KeyFromEnv(f.keyEnv, os.Getenv)
		if err != nil {
			return task.Key{}, badInput("%v", err)
		}
		return k, nil
	}
	password, err := task.ReadPassword(f.passwordFile, f.passwordEnv, os.Getenv)
	if err != nil {
		return task.Key{}, badInput("%v", err)
	}
	keys, err := task.LoadKeystore(f.keystore, password)
	if err != nil {
		return task.Key{}, badInput("%v", err)
	}
	if f.from != "" {
		for _, k := range keys {
			if strings.EqualFold(k.Address.Hex(), f.from) {
				return k, nil
			}
		}
		return task.Key{}, badInput("--from %s is not in keystore %s", f.from, f.keystore)
	}
	if len(keys) > 1 {
		return task.Key{}, badInput("keystore %s holds %d keys: choose one with --from", f.keystore, len(keys))
	}
	return keys[0], nil
}

// rigKeys are a rig process's keys as `pricerig rig` takes them (and `pricerig doctor` checks
// them): the operators' from a keystore (one rig per key file, its password from a file or a
// variable) or from --key-env variables, and, in relayed mode, the relayer's.
type rigKeys struct {
	keystore      string
	passwordFile  string
	passwordEnv   string
	keyEnvs       []string
	relayerKeyEnv string
}

func (k *rigKeys) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&k.keystore, "keystore", "", "go-ethereum keystore directory: one rig per key file")
	fl.StringVar(&k.passwordFile, "password-file", "", "file holding the keystore password")
	fl.StringVar(&k.passwordEnv, "password-env", "PRICERIG_KEYSTORE_PASSWORD", "variable holding the keystore password, when no --password-file")
	fl.StringSliceVar(&k.keyEnvs, "key-env", nil, "variable holding an operator's hex private key, for development (repeatable)")
	fl.StringVar(&k.relayerKeyEnv, "relayer-key-env", "", "variable holding the relayer's hex private key: relayed mode")
}

// given reports whether operator keys were given one way, and only one.
func (k rigKeys) given() bool { return (k.keystore == "") != (len(k.keyEnvs) == 0) }

// any reports whether any key was given.
func (k rigKeys) any() bool { return k.keystore != "" || len(k.keyEnvs) > 0 || k.relayerKeyEnv != "" }

// load reads the operators' keys and the relayer's (nil when not relayed).
func (k rigKeys) load() ([]task.Key, *task.Key, error) {
	var keys []task.Key
	if k.keystore != "" {
		password, err := task.ReadPassword(k.passwordFile, k.passwordEnv, os.Getenv)
		if err != nil {
			return nil, nil, err
		}
		if keys, err = task.LoadKeystore(k.keystore, password); err != nil {
			return nil, nil, err
		}
	}
	seen := map[common.Address]bool{}
	for _, name := range k.keyEnvs {
		key, err := task.KeyFromEnv(strings.TrimSpace(name), os.Getenv)
		if err != nil {
			return nil, nil, err
		}
		if seen[key.Address] {
			return nil, nil, fmt.Errorf("%s holds the same key as another --key-env", name)
		}
		seen[key.Address] = true
		keys = append(keys, key)
	}
	if k.relayerKeyEnv == "" {
		return keys, nil, nil
	}
	relayer, err := task.KeyFromEnv(k.relayerKeyEnv, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return keys, &relayer, nil
}

// sendFlags are the flags of every command that sends a transaction.
type sendFlags struct {
	yes    bool
	asJSON bool
}

func (f *sendFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "send without asking (for scripts; without it a command asks on a terminal and refuses elsewhere)")
	f.registerJSON(cmd)
}

// registerJSON is the one flag of a command that reads and sends nothing.
func (f *sendFlags) registerJSON(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
}

// planJSON is a plan as --json prints it; amounts are wei as decimal strings.
type planJSON struct {
	Function string `json:"function"`
	From     string `json:"from"`
	To       string `json:"to"`
	ValueWei string `json:"value_wei"`
	Gas      uint64 `json:"gas_estimate"`
	GasLimit uint64 `json:"gas_limit"`
	FeeWei   string `json:"fee_wei"`
	MaxFee   string `json:"max_fee_wei"`
	Balance  string `json:"balance_wei"`
}

func planOut(p txm.Plan) planJSON {
	return planJSON{Function: p.Function, From: p.From.Hex(), To: p.To.Hex(), ValueWei: p.Value.String(), Gas: p.Gas,
		GasLimit: p.GasLimit, FeeWei: p.Fee.String(), MaxFee: p.MaxFee.String(), Balance: p.Balance.String()}
}

// sentJSON is a mined transaction as --json prints it.
type sentJSON struct {
	TxHash            string `json:"tx_hash"`
	Block             uint64 `json:"block"`
	GasUsed           uint64 `json:"gas_used"`
	EffectiveGasPrice string `json:"effective_gas_price_wei"`
	FeePaid           string `json:"fee_paid_wei"`
}

func sentOut(r txm.SentTx) sentJSON {
	return sentJSON{TxHash: r.TxHash.Hex(), Block: r.Block, GasUsed: r.GasUsed, EffectiveGasPrice: r.EffectiveGasPrice.String(), FeePaid: r.FeePaid.String()}
}

// describePlan prints what will be sent, for a person to confirm.
func describePlan(w io.Writer, conn *chainConn, p txm.Plan) {
	fmt.Fprintf(w, "network:   %s (chain id %s) via %s\n", conn.network.Name, conn.chainID, conn.rpcShown)
	fmt.Fprintf(w, "contract:  %s\n", p.To.Hex())
	fmt.Fprintf(w, "from:      %s (balance %s ETH)\n", p.From.Hex(), audit.FormatETH(p.Balance))
	fmt.Fprintf(w, "function:  %s\n", p.Function)
	fmt.Fprintf(w, "value:     %s ETH (%s wei)\n", audit.FormatETH(p.Value), p.Value)
	fmt.Fprintf(w, "gas:       %d estimated, limit %d\n", p.Gas, p.GasLimit)
	fmt.Fprintf(w, "fee:       about %s ETH, at most %s ETH\n", audit.FormatETH(p.Fee), audit.FormatETH(p.MaxFee))
	fmt.Fprintln(w, "simulated: eth_call succeeds")
}

// errNotConfirmed refuses a send nobody confirmed: exit 2, nothing sent.
func notConfirmed(why string) error {
	return badInput("%s; nothing was sent (--yes sends without asking)", why)
}

// confirm asks on a terminal; anywhere else it refuses unless --yes was given.
func (a *app) confirm(f sendFlags, question string) error {
	if f.yes {
		return nil
	}
	file, ok := a.stdin.(*os.File)
	if !ok || !(isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd())) {
		return notConfirmed("not a terminal and no --yes")
	}
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		return notConfirmed("no answer")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return notConfirmed("not confirmed")
}

// send prepares a call (eth_call simulation, gas, fee), shows it, asks, sends it and reports
// what it cost. A call the contract would refuse is explained and not sent (exit 1).
func (a *app) send(ctx context.Context, conn *chainConn, key task.Key, f sendFlags, call txm.Call) (txm.Plan, txm.SentTx, error) {
	plan, err := txm.Prepare(ctx, conn.client, key.Address, call)
	if err != nil {
		var refused *txm.Refused
		if errors.As(err, &refused) {
			return plan, txm.SentTx{}, failed("%v", refused)
		}
		return plan, txm.SentTx{}, failed("%s", shownURL(err.Error()))
	}
	if plan.Balance.Cmp(plan.Total()) < 0 {
		return plan, txm.SentTx{}, failed("%s holds %s ETH; %s needs up to %s ETH (value and the most the fee can be); nothing was sent",
			key.Address.Hex(), audit.FormatETH(plan.Balance), call.Function, audit.FormatETH(plan.Total()))
	}
	describePlan(a.stderr, conn, plan)
	if err := a.confirm(f, "send it?"); err != nil {
		return plan, txm.SentTx{}, err
	}
	sender := txm.NewSender(conn.client, key, conn.chainID, txm.SenderConfig{})
	r, err := txm.SendPlan(ctx, sender, plan)
	if err != nil {
		var refused *txm.Refused
		if errors.As(err, &refused) {
			return plan, r, failed("%v", refused)
		}
		return plan, r, failed("%s", shownURL(err.Error()))
	}
	fmt.Fprintf(a.stderr, "sent:      %s in block %d, gas %d, fee %s ETH\n", r.TxHash.Hex(), r.Block, r.GasUsed, audit.FormatETH(r.FeePaid))
	return plan, r, nil
}

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parseETHFlag reads an amount of ETH from a flag, exactly, into wei.
func parseETHFlag(flag, text string) (*big.Int, error) {
	wei, err := audit.ParseETH(text)
	if err != nil {
		return nil, badInput("%s: %v", flag, err)
	}
	return wei, nil
}
