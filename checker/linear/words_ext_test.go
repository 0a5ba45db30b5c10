package linear_test

import (
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/report"
)

func init() { linear.Explain = report.Explain }
