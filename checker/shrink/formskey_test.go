package shrink

import (
	"slices"
	"testing"
)

// TestFormsKeyDistinct checks that the cache's packed keys tell apart
// every assignment of the four forms to a few operations (lengths that do
// and do not fill their last byte), and that packing one set of forms
// twice gives one key.
func TestFormsKeyDistinct(t *testing.T) {
	for n := 1; n <= 6; n++ {
		s := &shrinker{}
		seen := make(map[string][]form)
		forms := make([]form, n)
		for code := 0; code < 1<<(2*n); code++ {
			for i := range forms {
				forms[i] = form(code >> (2 * i) & 3)
			}
			key := string(s.formsKey(forms))
			if prev, ok := seen[key]; ok {
				t.Fatalf("forms %v and %v share a key", prev, forms)
			}
			seen[key] = slices.Clone(forms)
			if again := string(s.formsKey(forms)); again != key {
				t.Fatalf("forms %v packed twice give %q and %q", forms, key, again)
			}
		}
	}
}
