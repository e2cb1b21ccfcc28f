package secrets_test

import (
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/secrets"
)

func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(b)
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	k, err := secrets.New(newKey(t), "")
	require.NoError(t, err)
	plain := []byte(`{"auth_token":"s3cret"}`)
	sealed, err := k.Seal(plain, "cac_1")
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "s3cret")
	again, err := k.Seal(plain, "cac_1")
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "a fresh nonce each time")

	got, err := k.Open(sealed, "cac_1")
	require.NoError(t, err)
	require.Equal(t, plain, got)

	_, err = k.Open(sealed, "cac_2")
	require.ErrorIs(t, err, secrets.ErrTampered, "bound to its record")
	flipped := append([]byte(nil), sealed...)
	flipped[len(flipped)-1] ^= 1
	_, err = k.Open(flipped, "cac_1")
	require.ErrorIs(t, err, secrets.ErrTampered)
	_, err = k.Open(sealed[:5], "cac_1")
	require.ErrorIs(t, err, secrets.ErrTampered)
}

func TestRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKeyS := newKey(t), newKey(t)
	before, err := secrets.New(oldKey, "")
	require.NoError(t, err)
	sealed, err := before.Seal([]byte("token"), "cac_1")
	require.NoError(t, err)

	other, err := secrets.New(newKeyS, "")
	require.NoError(t, err)
	_, err = other.Open(sealed, "cac_1")
	require.ErrorIs(t, err, secrets.ErrNoKey, "without the previous key an old value does not open")

	during, err := secrets.New(newKeyS, oldKey)
	require.NoError(t, err)
	require.False(t, during.Current(sealed))
	got, err := during.Open(sealed, "cac_1")
	require.NoError(t, err)
	require.Equal(t, "token", string(got))
	resealed, err := during.Seal(got, "cac_1")
	require.NoError(t, err)
	require.True(t, during.Current(resealed))
	got, err = other.Open(resealed, "cac_1")
	require.NoError(t, err, "after the rewrite the previous key can go")
	require.Equal(t, "token", string(got))
}

func TestNoOrBadKey(t *testing.T) {
	t.Parallel()
	k, err := secrets.New("", "")
	require.NoError(t, err)
	require.False(t, k.Configured())
	_, err = k.Seal([]byte("x"), "r")
	require.ErrorIs(t, err, secrets.ErrNoKey)
	var nilKeys *secrets.Keys
	_, err = nilKeys.Seal([]byte("x"), "r")
	require.ErrorIs(t, err, secrets.ErrNoKey)

	for _, bad := range []string{"short", base64.StdEncoding.EncodeToString(make([]byte, 16)), "!!!!"} {
		_, err := secrets.New(bad, "")
		require.Error(t, err)
		require.NotContains(t, err.Error(), bad)
	}
	_, err = secrets.New("", newKey(t))
	require.Error(t, err, "a previous key without a current one")
}
