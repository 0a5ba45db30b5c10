package sim

// Mulberry32 is the public 32-bit generator every scenario draws from. Its
// whole state is one uint32, so a scenario's numbers depend only on its seed
// and on the order of its draws.
type Mulberry32 struct{ a uint32 }

// NewMulberry32 returns a generator seeded with seed.
func NewMulberry32(seed uint32) *Mulberry32 { return &Mulberry32{a: seed} }

// Uint32 advances the generator and returns its next 32-bit output.
func (m *Mulberry32) Uint32() uint32 {
	// Go's uint32 arithmetic wraps modulo 2^32 and keeps the low 32 bits of
	// each product, which is exactly the generator's definition.
	m.a += 0x6D2B79F5
	a := m.a
	t := (a ^ (a >> 15)) * (1 | a)
	t = (t + ((t ^ (t >> 7)) * (61 | t))) ^ t
	return t ^ (t >> 14)
}

// Float64 returns the next draw as a float64 in [0, 1): the output divided by 2^32.
func (m *Mulberry32) Float64() float64 { return float64(m.Uint32()) / (1 << 32) }

// Intn returns floor(draw*n), the scenarios' way of picking one of n
// choices; n must be positive.
func (m *Mulberry32) Intn(n int) int { return int(m.Float64() * float64(n)) }
