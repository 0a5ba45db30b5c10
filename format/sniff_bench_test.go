package format

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/internal/corpus"
)

// BenchmarkDetect measures detection by content on the head of a history
// of each detected format.
func BenchmarkDetect(b *testing.B) {
	c := corpus.Dir(b)
	for _, name := range []string{"porcupine-kv/c50-bad.txt", "porcupine-etcd/etcd_000.log"} {
		src, err := os.ReadFile(filepath.Join(c, name))
		if err != nil {
			b.Fatal(err)
		}
		head := src[:min(len(src), sniffLimit)]
		b.Run(filepath.Base(name), func(b *testing.B) {
			for b.Loop() {
				byContent(head)
			}
		})
	}
}
