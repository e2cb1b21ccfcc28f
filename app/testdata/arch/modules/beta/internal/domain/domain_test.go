package domain

import _ "github.com/uptrace/bun/dialect/pgdialect"
