package postgres

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPadded(t *testing.T) {
	require.Equal(t, []int{10, 10, 10, 11, 64}, []int{padded(0), padded(1), padded(10), padded(11), padded(64)})
}
