package sequential_test

import (
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/report"
)

func init() { sequential.Explain = report.Explain }
