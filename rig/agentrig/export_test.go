package agentrig

// RefusedForPooledTransaction lets the external tests pin go-ethereum's words.
var RefusedForPooledTransaction = refusedForPooledTransaction
