package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

func TestScratch(t *testing.T) {
	cs := checkers(register0)
	rep := &Report{}
	for _, n := range []string{"h2"} {
		rep.Histories = append(rep.Histories, checked(t, n+".hist", "register", textbook(t, n), cs, checker.Linearizable, checker.Sequential))
	}
	rep.Finish()
	f, _ := os.Create("/tmp/h2.html")
	if err := HTML(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dir := corpus.Dir(t)
	h, err := format.ReadFile(filepath.Join(dir, "knossos/cas-register/bad/rethink-fail.edn"), "")
	if err != nil {
		t.Fatal(err)
	}
	cs2 := checkers(func() model.Model[int64] { return model.NewCASRegister(model.Options{}) })
	rep = &Report{Histories: []History{checked(t, "rethink-fail.edn", "cas-register", h, cs2, checker.Linearizable)}}
	rep.Finish()
	f, _ = os.Create("/tmp/rethink.html")
	if err := HTML(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	WriteText(os.Stdout, rep, TextOptions{})
}
