package shrink_test

import (
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/report"
)

func init() { shrink.Explain = report.Explain }
