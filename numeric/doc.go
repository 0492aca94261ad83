// Package numeric holds the exact arithmetic of a job-2 answer: prices as fixed-point integers
// (price × 10^8), the bytes32 encoding of answers, and the agreement rules of the AgentRig seed
// ("Jobs and verification") for NUMERIC and EXACT jobs, bit for bit.
//
// Nothing here touches a float. Even CanonicalFloat32, which undoes a provider's float32 printed
// as a float64 (Yahoo's), does float64 reading and float32 shortest printing in integers: it gives
// strconv's answer digit for digit, and its tests hold it to strconv (the tests alone use floats).
//
// The package depends on nothing else in pricerig.
//
// Files:
//   - price.go: Scaled (price × 10^8) and exact decimal parsing (ParsePrice, ParsePriceBytes) and
//     printing (FormatScaled).
//   - answer.go: Answer, the bytes32 an answer is sent as (NumericAnswer, AnswerInt, ParseAnswer).
//   - agree.go: Kind, Rule and Agree (the seed's agreement for NUMERIC and EXACT), LowerMedian and
//     WithinTolerance.
//   - float32.go: CanonicalFloat32, a float32 printed as a float64 read back in integers.
//   - eth.go: ParseETH and FormatETH, an amount of ether as decimal text and wei (math/big).
package numeric
