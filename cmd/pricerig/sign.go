package main

import (
	"encoding/json"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/numeric"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

func init() { register(newSignCmd) }

// signOutput is the JSON `pricerig sign` prints. The key itself is never printed.
type signOutput struct {
	Digest     string `json:"digest"`
	Signature  string `json:"signature"`
	Signer     string `json:"signer"`
	Commitment string `json:"commitment,omitempty"`
}

// signFlags are the flags every sign subcommand shares: whose key, and which deployment.
type signFlags struct {
	keyEnv, chainID, contract string
}

func (f *signFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.keyEnv, "key-env", "", "environment variable holding the operator's hex private key (required)")
	cmd.Flags().StringVar(&f.chainID, "chain-id", "", "chain id of the deployment, e.g. 4663 for Robinhood Chain (required)")
	cmd.Flags().StringVar(&f.contract, "contract", "", "address of the AgentRig contract (required)")
	for _, name := range []string{"key-env", "chain-id", "contract"} {
		_ = cmd.MarkFlagRequired(name)
	}
}

// domain parses the deployment flags.
func (f *signFlags) domain() (rigtask.Domain, error) {
	chainID, err := parseUint256("--chain-id", f.chainID)
	if err != nil {
		return rigtask.Domain{}, err
	}
	if chainID.Sign() == 0 {
		return rigtask.Domain{}, badInput("--chain-id must be positive")
	}
	contract, err := parseAddress("--contract", f.contract)
	if err != nil {
		return rigtask.Domain{}, err
	}
	return rigtask.Domain{ChainID: chainID, Contract: contract}, nil
}

// signer loads the key from the named variable. Errors name the variable, never its value.
func (f *signFlags) signer() (*rigtask.KeySigner, error) {
	key, err := rigtask.KeyFromEnv(f.keyEnv, os.Getenv)
	if err != nil {
		return nil, badInput("%v", err)
	}
	return rigtask.NewKeySigner(key.Private), nil
}

// finish signs the digest and prints the result.
func (f *signFlags) finish(a *app, digest common.Hash, commitment string) error {
	s, err := f.signer()
	if err != nil {
		return err
	}
	sig, err := s.SignDigest(digest)
	if err != nil {
		return failed("signing: %v", err)
	}
	return json.NewEncoder(a.stdout).Encode(signOutput{
		Digest:     digest.Hex(),
		Signature:  hexutil.Encode(sig),
		Signer:     s.Address().Hex(),
		Commitment: commitment,
	})
}

func newSignCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sign commit|reveal|operator-fee",
		Short: "Sign a commit, a reveal or a relayer-fee consent for a relayer (EIP-712)",
		Long: `Sign AgentRig's EIP-712 messages with an operator key so that a relayer can send them
(commitMany, revealMany, setOperatorFee). The domain is {name "AgentRig", version "1",
chainId, verifyingContract}. The key is read from the environment variable named by --key-env
(hex, with or without 0x) and is never printed.

Prints {"digest", "signature" (65 bytes, v 27/28), "signer"} as JSON; exit 2 on bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput("sign needs a message type: commit, reveal or operator-fee")
		},
	}
	cmd.AddCommand(newSignCommitCmd(a), newSignRevealCmd(a), newSignOperatorFeeCmd(a))
	return cmd
}

func newSignCommitCmd(a *app) *cobra.Command {
	var f signFlags
	var task, commitment, answer, salt string
	var rigID uint64
	cmd := &cobra.Command{
		Use:   "commit --key-env VAR --chain-id ID --contract 0x… --task N (--commitment 0x… | --rig N --answer A --salt 0x…)",
		Short: "Sign Commit(uint256 taskId,bytes32 commitment)",
		Long: `Sign Commit(uint256 taskId,bytes32 commitment). Give the commitment itself, or the rig id,
answer and salt to compute it (it is then printed as "commitment" too).`,
		Example: `  OPERATOR_KEY=0x… pricerig sign commit --key-env OPERATOR_KEY --chain-id 4663 \
    --contract 0x… --task 7 --rig 2 --answer 17712000000 --salt 0x…`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := f.domain()
			if err != nil {
				return err
			}
			taskID, err := parseUint256("--task", task)
			if err != nil {
				return err
			}
			given := cmd.Flags().Changed("commitment")
			parts := cmd.Flags().Changed("answer") || cmd.Flags().Changed("salt") || cmd.Flags().Changed("rig")
			var c common.Hash
			printed := ""
			switch {
			case given && parts:
				return badInput("give either --commitment or --rig, --answer and --salt, not both")
			case given:
				raw, err := parseHash32("--commitment", commitment)
				if err != nil {
					return err
				}
				c = raw
			default:
				if !cmd.Flags().Changed("rig") || !cmd.Flags().Changed("answer") || !cmd.Flags().Changed("salt") {
					return badInput("give --commitment, or all of --rig, --answer and --salt")
				}
				ans, err := numeric.ParseAnswer(answer)
				if err != nil {
					return badInput("--answer: %v", err)
				}
				s, err := parseHash32("--salt", salt)
				if err != nil {
					return err
				}
				if c, err = rigtask.Commitment(taskID, rigID, ans, s); err != nil {
					return badInput("%v", err)
				}
				printed = c.Hex()
			}
			digest, err := d.CommitDigest(taskID, c)
			if err != nil {
				return badInput("%v", err)
			}
			return f.finish(a, digest, printed)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&task, "task", "", "task id (required)")
	cmd.Flags().StringVar(&commitment, "commitment", "", "the commitment, 0x plus 64 hex digits")
	cmd.Flags().Uint64Var(&rigID, "rig", 0, "rig id, to compute the commitment")
	cmd.Flags().StringVar(&answer, "answer", "", "the answer, to compute the commitment: decimal integer or 0x plus 64 hex digits")
	cmd.Flags().StringVar(&salt, "salt", "", "the salt, to compute the commitment: 0x plus 64 hex digits")
	_ = cmd.MarkFlagRequired("task")
	return cmd
}

func newSignRevealCmd(a *app) *cobra.Command {
	var f signFlags
	var task, answer, salt string
	cmd := &cobra.Command{
		Use:   "reveal --key-env VAR --chain-id ID --contract 0x… --task N --answer A --salt 0x…",
		Short: "Sign Reveal(uint256 taskId,bytes32 answer,bytes32 salt)",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			d, err := f.domain()
			if err != nil {
				return err
			}
			taskID, err := parseUint256("--task", task)
			if err != nil {
				return err
			}
			ans, err := numeric.ParseAnswer(answer)
			if err != nil {
				return badInput("--answer: %v", err)
			}
			s, err := parseHash32("--salt", salt)
			if err != nil {
				return err
			}
			digest, err := d.RevealDigest(taskID, ans, s)
			if err != nil {
				return badInput("%v", err)
			}
			return f.finish(a, digest, "")
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&task, "task", "", "task id (required)")
	cmd.Flags().StringVar(&answer, "answer", "", "the answer: decimal integer or 0x plus 64 hex digits (required)")
	cmd.Flags().StringVar(&salt, "salt", "", "the salt of the commitment: 0x plus 64 hex digits (required)")
	for _, name := range []string{"task", "answer", "salt"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func newSignOperatorFeeCmd(a *app) *cobra.Command {
	var f signFlags
	var payee, nonce string
	var bps uint16
	cmd := &cobra.Command{
		Use:   "operator-fee --key-env VAR --chain-id ID --contract 0x… --bps B --payee 0x… --nonce N",
		Short: "Sign OperatorFee(address operator,uint16 bps,address payee,uint256 nonce)",
		Long: `Sign an operator's consent that PAYEE (its relayer) takes B basis points (0..10000) of the
operator's rig earnings. The operator is the key's own address. The contract accepts each
nonce once; a later consent replaces an earlier one, and bps 0 ends the arrangement.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			d, err := f.domain()
			if err != nil {
				return err
			}
			if bps > numeric.BpsDenominator {
				return badInput("--bps %d is more than 10000", bps)
			}
			p, err := parseAddress("--payee", payee)
			if err != nil {
				return err
			}
			n, err := parseUint256("--nonce", nonce)
			if err != nil {
				return err
			}
			s, err := f.signer()
			if err != nil {
				return err
			}
			digest, err := d.OperatorFeeDigest(rigtask.OperatorFee{Operator: s.Address(), Bps: bps, Payee: p, Nonce: n})
			if err != nil {
				return badInput("%v", err)
			}
			return f.finish(a, digest, "")
		},
	}
	f.register(cmd)
	cmd.Flags().Uint16Var(&bps, "bps", 0, "the payee's share in basis points, 0..10000 (required)")
	cmd.Flags().StringVar(&payee, "payee", "", "the payee (relayer) address (required)")
	cmd.Flags().StringVar(&nonce, "nonce", "", "a nonce not used before by this operator (required)")
	for _, name := range []string{"bps", "payee", "nonce"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}
