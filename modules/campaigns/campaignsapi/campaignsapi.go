// Package campaignsapi is the campaigns module's contract for other modules.
package campaignsapi
