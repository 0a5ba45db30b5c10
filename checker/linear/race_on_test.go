//go:build race

package linear

// raceEnabled reports a build with the race detector, which runs the
// searches and Porcupine several times slower: the long differential tests
// then take a smaller sample.
const raceEnabled = true
