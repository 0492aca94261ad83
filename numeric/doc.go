// Package numeric holds the exact arithmetic of a job-2 answer: prices as fixed-point integers
// (price × 10^8), the bytes32 encoding of answers, and the agreement rules of the AgentRig seed
// ("Jobs and verification") for NUMERIC and EXACT jobs, bit for bit.
//
// Nothing here touches a float on the value path. The one helper that reads a float
// (CanonicalFloat32) only rewrites a provider's text into the shortest decimal that text stood
// for, before it is parsed exactly.
//
// The package depends on nothing else in pricerig.
package numeric
