package regdp

// MaxCands exposes the bound on values waiting at once to the external tests.
const MaxCands = maxCands
