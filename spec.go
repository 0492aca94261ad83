// Package pricerig holds what belongs to the repository as a whole: the job-2 spec as shipped.
package pricerig

import _ "embed" // for DefaultSpec

// DefaultSpec is the repository's sources.yaml, the spec every command reads when it is given no
// --config and finds no ./sources.yaml.
//
//go:embed sources.yaml
var DefaultSpec []byte
