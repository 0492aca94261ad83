package main

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/numeric"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

func init() { register(newCommitmentCmd) }

func newCommitmentCmd(a *app) *cobra.Command {
	var task, answer, salt string
	var rigID uint64
	cmd := &cobra.Command{
		Use:   "commitment --task N --rig N --answer A --salt 0x…",
		Short: "Compute a rig's commitment to an answer",
		Long: `Compute keccak256(abi.encode(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt)), the
commitment a drawn rig sends before revealing, and print {"commitment": "0x…"}.

A is a decimal integer (a NUMERIC answer, price × 10^8, encoded as a uint256) or 0x followed by
64 hex digits (the raw bytes32). The salt is 0x followed by 64 hex digits; a rig draws a fresh
one from crypto/rand for every commitment.`,
		Example: `  pricerig commitment --task 1 --rig 2 --answer 17712000000 --salt 0x$(openssl rand -hex 32)`,
		Args:    cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
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
			c, err := rigtask.Commitment(taskID, rigID, ans, s)
			if err != nil {
				return badInput("%v", err)
			}
			return json.NewEncoder(a.stdout).Encode(map[string]string{"commitment": c.Hex()})
		},
	}
	cmd.Flags().StringVar(&task, "task", "", "task id, a decimal integer below 2^256 (required)")
	cmd.Flags().Uint64Var(&rigID, "rig", 0, "rig id (required)")
	cmd.Flags().StringVar(&answer, "answer", "", "the answer: decimal integer or 0x plus 64 hex digits (required)")
	cmd.Flags().StringVar(&salt, "salt", "", "the salt: 0x plus 64 hex digits (required)")
	for _, f := range []string{"task", "rig", "answer", "salt"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// parseUint256 reads a decimal integer (or 0x hex) that fits a uint256.
func parseUint256(flag, text string) (*big.Int, error) {
	s := strings.TrimSpace(text)
	v, ok := new(big.Int), false
	if rest, isHex := strings.CutPrefix(strings.ToLower(s), "0x"); isHex {
		if rest != "" && strings.Trim(rest, "0123456789abcdef") == "" {
			_, ok = v.SetString(rest, 16)
		}
	} else if s != "" && strings.Trim(s, "0123456789") == "" {
		_, ok = v.SetString(s, 10)
	}
	if !ok {
		return nil, badInput("%s %q: want a non-negative integer", flag, clipArg(text))
	}
	if v.BitLen() > 256 {
		return nil, badInput("%s %q: does not fit in a uint256", flag, clipArg(text))
	}
	return v, nil
}

// parseHash32 reads 0x followed by exactly 64 hex digits.
func parseHash32(flag, text string) ([32]byte, error) {
	var out [32]byte
	s := strings.TrimSpace(text)
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		h, ok = strings.CutPrefix(s, "0X")
	}
	if !ok || len(h) != 64 {
		return out, badInput("%s %q: want 0x followed by 64 hex digits", flag, clipArg(text))
	}
	if _, err := hex.Decode(out[:], []byte(h)); err != nil {
		return out, badInput("%s %q: not hex", flag, clipArg(text))
	}
	return out, nil
}

// parseAddress reads a 0x address; a mixed-case one must carry a correct EIP-55 checksum, since
// a typo in it is what the checksum is there to catch.
func parseAddress(flag, text string) (common.Address, error) {
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return common.Address{}, badInput("%s %q: want 0x followed by 40 hex digits", flag, clipArg(text))
	}
	addr := common.HexToAddress(s)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && addr.Hex() != s {
		return common.Address{}, badInput("%s %q: bad EIP-55 checksum (want %s)", flag, clipArg(text), addr.Hex())
	}
	return addr, nil
}

func clipArg(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
