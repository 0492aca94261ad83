package main

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/numeric"
)

func init() { register(newAgreeCmd) }

// agreeOutput is the JSON `pricerig agree` prints.
type agreeOutput struct {
	Agreed   bool   `json:"agreed"`
	Answer   string `json:"answer"`
	Median   string `json:"median,omitempty"`
	Agree    int    `json:"agree"`
	Reveals  int    `json:"reveals"`
	Verdicts []bool `json:"verdicts"`
}

func newAgreeCmd(a *app) *cobra.Command {
	var kind string
	var quorum int
	var tolerance uint32
	cmd := &cobra.Command{
		Use:   "agree --kind numeric|exact --quorum N [--tolerance-bps T] ANSWER...",
		Short: "Settle revealed answers by the seed's agreement rules",
		Long: `Settle a set of revealed answers exactly as AgentRig does and print the outcome as JSON.

Each ANSWER is a decimal integer (a NUMERIC answer, price × 10^8) or 0x followed by 64 hex digits
(the raw bytes32). NUMERIC: the median is the lower middle of the revealed values; an answer agrees
when |answer − median| × 10000 ≤ median × tolerance. EXACT: the most frequent answer agrees; a tie
for the top is no agreement. Either way the agreeing answers must be at least 2 and more than half
of the quorum drawn.

Exit 0 whether or not the answers agreed; exit 2 on bad arguments.`,
		Example: `  pricerig agree --kind numeric --quorum 3 --tolerance-bps 50 17712000000 17705000000 18000000000
  pricerig agree --kind exact --quorum 3 0x$(printf '%064x' 7) 0x$(printf '%064x' 7)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			rule := numeric.Rule{Quorum: quorum, ToleranceBps: tolerance}
			switch strings.ToLower(kind) {
			case "numeric":
				rule.Kind = numeric.Numeric
				if !cmd.Flags().Changed("tolerance-bps") {
					return badInput("--tolerance-bps is required for --kind numeric (1..2000)")
				}
			case "exact":
				rule.Kind = numeric.Exact
			default:
				return badInput("--kind must be numeric or exact, got %q", kind)
			}
			if err := rule.Validate(); err != nil {
				return badInput("%v", err)
			}
			answers := make([]numeric.Answer, len(args))
			for i, arg := range args {
				ans, err := numeric.ParseAnswer(arg)
				if err != nil {
					return badInput("answer %d: %v", i+1, err)
				}
				answers[i] = ans
			}
			out, err := numeric.Agree(rule, answers)
			if err != nil {
				return badInput("%v", err)
			}
			res := agreeOutput{
				Agreed:   out.Agreed,
				Answer:   numeric.AnswerHex(out.Answer),
				Agree:    out.Agree,
				Reveals:  out.Reveals,
				Verdicts: out.Verdicts,
			}
			if out.Median != nil {
				res.Median = out.Median.String()
			}
			enc := json.NewEncoder(a.stdout)
			return enc.Encode(res)
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "answer kind: numeric or exact (required)")
	cmd.Flags().IntVar(&quorum, "quorum", 0, "rigs drawn for the task, 2..5 (required)")
	cmd.Flags().Uint32Var(&tolerance, "tolerance-bps", 0, "numeric tolerance in basis points, 1..2000; 0 for exact")
	_ = cmd.MarkFlagRequired("kind")
	_ = cmd.MarkFlagRequired("quorum")
	return cmd
}
