package sim

import (
	"math"
	"sort"
)

// The workloads' choices of keys and micro-operations, apart from how the
// store runs them (txnstore.go).

// zipfKeys picks slots 0..n-1 with probability proportional to
// 1/(i+1)^s: the first slots are the hot keys.
type zipfKeys struct{ cdf []float64 }

func newZipfKeys(n int, s float64) *zipfKeys {
	z := &zipfKeys{cdf: make([]float64, n)}
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		z.cdf[i] = total
	}
	for i := range z.cdf {
		z.cdf[i] /= total
	}
	return z
}

func (z *zipfKeys) pick(rng *Mulberry32) int {
	u := rng.Float64()
	return min(sort.SearchFloat64s(z.cdf, u), len(z.cdf)-1)
}

// pickSlot chooses one of the keys in use.
func (s *store) pickSlot() int {
	if s.zipf != nil {
		return s.zipf.pick(s.rng)
	}
	return s.rng.Intn(len(s.active))
}

// reads says whether the next micro-operation reads. One half, the
// default, is the coin the store has always tossed, so that a seed gives
// the history it gave before the ratio could be set.
func (s *store) reads() bool {
	if s.o.ReadRatio == 0 || s.o.ReadRatio == 0.5 {
		return s.rng.Intn(2) == 0
	}
	return s.rng.Float64() < s.o.ReadRatio
}

// The TPC-C-like mix: TPC-C's five transactions, each as the reads and
// writes of rows it makes, on one warehouse's rows scaled down: 10
// districts, 30 customers per district, 100 stock items per warehouse.
const (
	tpccDistricts = 10
	tpccCustomers = 30
	tpccItems     = 100
	tpccOrderRows = 5 // items per new order
)

// tpccKind is one of the five transactions.
type tpccKind int32

const (
	tpccNewOrder tpccKind = iota
	tpccPayment
	tpccOrderStatus
	tpccDelivery
	tpccStockLevel
)

// tpccMix is the share of each transaction in TPC-C's mix (45, 43, 4, 4,
// 4 percent), as cumulative percentages.
var tpccMix = [...]int{45, 88, 92, 96, 100}

// tpccLengths are the micro-operations of each transaction.
var tpccLengths = [...]int32{4 + 2*tpccOrderRows, 6, 2, 5, 1 + tpccOrderRows}

// tpccPick draws a transaction from the mix.
func tpccPick(rng *Mulberry32) tpccKind {
	r := rng.Intn(100)
	for k, c := range tpccMix {
		if r < c {
			return tpccKind(k)
		}
	}
	return tpccStockLevel
}

// tpccKeys is the key space of W warehouses: warehouse rows, then
// district, customer and stock rows.
type tpccKeys struct{ warehouses int32 }

func (k tpccKeys) warehouse(w int32) int32 { return w }
func (k tpccKeys) district(w, d int32) int32 {
	return k.warehouses + w*tpccDistricts + d
}
func (k tpccKeys) customer(w, d, c int32) int32 {
	return k.warehouses*(1+tpccDistricts) + (w*tpccDistricts+d)*tpccCustomers + c
}
func (k tpccKeys) stock(w, i int32) int32 {
	return k.warehouses*(1+tpccDistricts+tpccDistricts*tpccCustomers) + w*tpccItems + i
}
func (k tpccKeys) count() int32 { return k.stock(k.warehouses, 0) }

// tpccMops lays out a transaction's reads and writes; the store gives the
// writes their values.
func (s *store) tpccMops(t *stxn) {
	keys := tpccKeys{warehouses: int32(s.o.Warehouses)}
	w := int32(s.rng.Intn(s.o.Warehouses))
	d := int32(s.rng.Intn(tpccDistricts))
	c := int32(s.rng.Intn(tpccCustomers))
	var plan []smop
	rmw := func(k int32) { plan = append(plan, smop{key: k}, smop{key: k, write: true}) }
	read := func(k int32) { plan = append(plan, smop{key: k}) }
	switch t.kind {
	case tpccNewOrder: // the district's next order id, the warehouse's tax, the customer, the stock of each line
		rmw(keys.district(w, d))
		read(keys.warehouse(w))
		read(keys.customer(w, d, c))
		for range tpccOrderRows {
			rmw(keys.stock(w, int32(s.rng.Intn(tpccItems))))
		}
	case tpccPayment: // year-to-date totals of warehouse and district, the customer's balance
		rmw(keys.warehouse(w))
		rmw(keys.district(w, d))
		rmw(keys.customer(w, d, c))
	case tpccOrderStatus:
		read(keys.customer(w, d, c))
		read(keys.district(w, d))
	case tpccDelivery: // the district's oldest orders, and their customers' balances
		read(keys.district(w, d))
		rmw(keys.customer(w, d, c))
		rmw(keys.customer(w, d, int32(s.rng.Intn(tpccCustomers))))
	case tpccStockLevel:
		read(keys.district(w, d))
		for range tpccOrderRows {
			read(keys.stock(w, int32(s.rng.Intn(tpccItems))))
		}
	}
	for j := range plan {
		if plan[j].write {
			k := plan[j].key
			s.values[k]++
			plan[j].value = s.values[k]
		}
	}
	t.mops = plan
}
