// cannery's BigQuery grammar: node-sql-parser 5.4.0's pegjs/bigquery.pegjs (Apache-2.0, see
// grammar/upstream/LICENSE), kept verbatim in grammar/upstream/bigquery.pegjs, with the changes listed
// here; each is marked `cannery:` where it is made. `diff -u grammar/upstream/bigquery.pegjs
// grammar/bigquery.pegjs` shows them all. docs/sql-parser.md gives the reasons, the AST of every new
// node, and how to move to a new node-sql-parser release. grammar/build.mjs compiles this file.
//
// Changes:
//  1. Literals: string literals keep their text as written (escapes undecoded), in every BigQuery
//     quoted form ('', "", ''' ''', """ """, r-prefixed); bytes literals (b'', rb'' ...); hexadecimal
//     integers (0x1F); large negative integers and decimals keep their exact text; a literal runs
//     into nothing.
//  2. Identifiers: backticks are the only quoted identifiers in a column reference and an implicit
//     alias; a CTE name may be in backticks.
//  3. Clauses: QUALIFY is reserved; WINDOW comes before ORDER BY and LIMIT; NULLS FIRST | LAST in
//     every ORDER BY; parenthesised joins as from items (`parenthesized_join`).
//  4. Aggregates: DISTINCT, IGNORE | RESPECT NULLS, ORDER BY and LIMIT inside any aggregate call,
//     STRING_AGG's delimiter beside them (`aggr_func_clauses` when the stock shape cannot hold
//     them); ORDER BY / LIMIT no longer attach to a STRUCT(...).
//  5. Subscripts and field access chained after any expression, with any expression as index.
//  6. INTERVAL: QUARTER, MILLISECOND, MICROSECOND and the `X TO Y` range form.
//  7. Types: BigQuery's type names and aliases in CAST (INT, BIGINT, BYTEINT, BIGNUMERIC, BOOLEAN,
//     JSON, INTERVAL, BYTES, NUMERIC(p, s) ...), STRING(n) no longer throws; CAST ... FORMAT
//     (`cast_format`).
//  8. EXTRACT: AT TIME ZONE (`at_time_zone` source), and the parts MICROSECOND, MILLISECOND,
//     DAYOFYEAR, DATETIME, WEEK(day).
//  9. CURRENT_DATETIME without parentheses; typed array literals of any expressions, or empty.
// 10. CAST is tried before function calls, which parsed every nested CAST twice (2^n for n levels).
// 11. Bitwise operators | ^ & << >> between the additive operators and the comparisons, at
//     GoogleSQL's precedence; IS [NOT] DISTINCT FROM; an ORDER BY item's COLLATE kept (`collate`).
// 12. A set operator after a FROM clause starts the next member, never a join (`FROM t UNION ALL (...)`).
// 13. NUMERIC and BIGNUMERIC literals (`NUMERIC '1.5'`); JSON '...' takes one string; named
//     arguments after a call's positional ones (`MAKE_INTERVAL(1, day => 2)`: a `named_argument`
//     in its list); a call of two arguments may carry IGNORE | RESPECT NULLS and the other
//     aggregate modifiers (`NTH_VALUE(x, 2 IGNORE NULLS)`), not STRING_AGG alone.
// 14. An expression never starts with SELECT: a nested subquery is parsed once, not twice per level.
// 15. tableList and columnList stay empty (cannery never reads them; keeping them cost a quarter
//     of parsing the start-up benchmark's queries).
// 16. (In grammar/build.mjs, on peggy's output: `__` keeps its last answer, so an alternative
//     that fails does not make the next one read the same spaces and comments again.)
// 17. ORDER BY and LIMIT after a parenthesised last member of a query are kept (_outer_orderby,
//     _outer_limit); stock parsed and dropped them, so the query answered unordered and unlimited.
// 18. LIKE's pattern is a whole operand (`s LIKE 'a' || x`), and no || follows a whole expression.
// 19. IN UNNEST(array) takes no alias: `SELECT x IN UNNEST(a) AS b` names the select item b.
// 20. TABLESAMPLE and table hints are kept on the FROM item (stock dropped them), to be refused.
// 21. EXTRACT(part FROM DATE '...'): the type word makes a typed literal only of a string literal.
// 22. No ALL for a star in a select list, no string as a CTE name or after AS: BigQuery has none.
// 23. A parameter's name has no `-`: `@p-1` is @p minus 1.
// 24. Set operations by name: a mode (INNER, FULL | LEFT [OUTER], OUTER) before the operator,
//     BY NAME [ON (columns)] or [STRICT] CORRESPONDING [BY (columns)] after it (a `set_op` node).
//     A set operation in parentheses is a member of another (a `set_query` node).
// 25. GROUP BY ROLLUP (...), CUBE (...) and GROUPING SETS (...), with `()` the empty grouping set
//     (a `grouping_spec` node among the GROUP BY items).
// 26. HAVING MAX | MIN in any aggregate call, after IGNORE | RESPECT NULLS (`having` in its args).
// 27. INTERSECT ALL and EXCEPT ALL (`set_op` 'intersect all', 'except all').
// 28. PIVOT's aggregates and values each take an alias, and any aggregate call (a `pivot_operator`
//     node on the FROM item, where stock made a `pivot` that dropped the aliases).
// 29. GROUP BY (): the empty grouping set as a GROUP BY item (an `expr_list` with no value).
// 30. UNPIVOT [INCLUDE | EXCLUDE NULLS] (v FOR n IN (col [[AS] 'name' | 1], ...)) and of several
//     values columns, ((v1, v2) FOR n IN ((a, b) [[AS] 'name' | 1], ...)) (an `unpivot_operator`
//     on the FROM item, as PIVOT's); UNPIVOT is reserved, as PIVOT was, so never an alias.
// 31. Quantified LIKE: [NOT] LIKE ANY | SOME | ALL (patterns) or UNNEST(array) (operator `LIKE ANY`...).
// 32. ARRAY_AGG(x) takes OVER, as the other aggregate calls do.
// 33. STRUCT(...) is an operand: an operator may follow it (`STRUCT(1) IS DISTINCT FROM NULL`).
// 34. RANGE<DATE | DATETIME | TIMESTAMP> as a type (a `definition` of its one element type) and
//     as a typed literal of one string (`range_literal`, its element type and its text as written).
// 35. FROM is never a function's name: `SELECT a, FROM (SELECT ...)` (a trailing comma) is no call.

{
  const reservedMap = {
    'ARRAY': true,
    'ALTER': true,
    'ALL': true,
    'ADD': true,
    'AND': true,
    'AS': true,
    'ASC': true,

    'BETWEEN': true,
    'BY': true,

    'CALL': true,
    'CASE': true,
    'CREATE': true,
    'CROSS': true,
    'CONTAINS': true,
    'CURRENT_DATE': true,
    'CURRENT_TIME': true,
    'CURRENT_TIMESTAMP': true,
    'CURRENT_USER': true,

    'DELETE': true,
    'DESC': true,
    'DISTINCT': true,
    'DROP': true,

    'ELSE': true,
    'END': true,
    'EXISTS': true,
    'EXPLAIN': true,
    'EXCEPT': true,

    'FALSE': true,
    'FROM': true,
    'FULL': true,
    'FOR': true,

    'GROUP': true,

    'HAVING': true,

    'IN': true,
    'INNER': true,
    'INSERT': true,
    'INTERSECT': true,
    'INTO': true,
    'IS': true,

    'JOIN': true,
    'JSON': true,

    'KEY': false,

    'LEFT': true,
    'LIKE': true,
    'LIMIT': true,
    'LOW_PRIORITY': true, // for lock table

    'NOT': true,
    'NULL': true,

    'ON': true,
    'OR': true,
    'ORDER': true,
    'OUTER': true,

    'PARTITION': true,
    'PIVOT': true,
    // cannery: as PIVOT, never a table's implicit alias (patch 30).
    'UNPIVOT': true,
    'QUALIFY': true, // cannery: reserved in BigQuery, so `from t qualify ...` is no table alias

    'RECURSIVE': true,
    'RENAME': true,
    'READ': true, // for lock table
    'RIGHT': false,

    'SELECT': true,
    'SESSION_USER': true,
    'SET': true,
    'SHOW': true,
    'SYSTEM_USER': true,

    'TABLE': true,
    'THEN': true,
    'TRUE': true,
    'TRUNCATE': true,
    // 'TYPE': true,   // reserved (MySQL)

    'UNION': true,
    'UPDATE': true,
    'USING': true,

    'VALUES': true,

    'WINDOW': true,
    'WITH': true,
    'WHEN': true,
    'WHERE': true,
    'WRITE': true, // for lock table

    'GLOBAL': true,
    // 'SESSION': true,
    'LOCAL': true,
    'PERSIST': true,
    'PERSIST_ONLY': true,
    'UNNEST': true,
  };

  const DATA_TYPES = {
    'BOOL': true,
    'BYTE': true,
    'DATE': true,
    'DATETIME': true,
    'FLOAT64': true,
    'INT64': true,
    'NUMERIC': true,
    'STRING': true,
    'TIME': true,
    'TIMESTAMP': true,
    'ARRAY': true,
    'STRUCT': true,
  }

  // cannery: the upper-case dotted name of a proc_func_name result (`{ schema, name: [...] }`).
  function dottedName(n) {
    return [n.schema, ...n.name].filter(Boolean).map(part => part.value).join('.').toUpperCase()
  }

  // cannery: an aggregate call's arguments as { expr, separator? }: one expression, or two (the
  // second in `separator`, as STRING_AGG's delimiter is written); null for anything else.
  function aggregateArguments(name, list) {
    if (!list) return null
    if (list.type !== 'expr_list' || list.parentheses) return { expr: list }
    if (list.value.length !== 2 || list.value.some(arg => arg.type === 'named_argument')) return null
    return { expr: list.value[0], separator: { symbol: ',', delimiter: list.value[1] } }
  }

  function getLocationObject() {
    return options.includeLocations ? {loc: location()} : {}
  }

  function createUnaryExpr(op, e) {
    return {
      type: 'unary_expr',
      operator: op,
      expr: e
    };
  }

  function createBinaryExpr(op, left, right) {
    return {
      type: 'binary_expr',
      operator: op,
      left: left,
      right: right,
      ...getLocationObject(),
    };
  }

  function isBigInt(numberStr) {
    const previousMaxSafe = BigInt(Number.MAX_SAFE_INTEGER)
    const num = BigInt(numberStr)
    // cannery: by magnitude, so a large negative literal keeps its exact text too.
    if ((num < 0 ? -num : num) < previousMaxSafe) return false
    return true
  }

  function createList(head, tail, po = 3) {
    const result = [head];
    for (let i = 0; i < tail.length; i++) {
      delete tail[i][po].tableList
      delete tail[i][po].columnList
      result.push(tail[i][po]);
    }
    return result;
  }

  function createBinaryExprChain(head, tail) {
    let result = head;
    for (let i = 0; i < tail.length; i++) {
      result = createBinaryExpr(tail[i][1], result, tail[i][3]);
    }
    return result;
  }

  function queryTableAlias(tableName) {
    const alias = tableAlias[tableName]
    if (alias) return alias
    if (tableName) return tableName
    return null
  }

  function columnListTableAlias(columnList) {
    const newColumnsList = new Set()
    const symbolChar = '::'
    for(let column of columnList.keys()) {
      const columnInfo = column.split(symbolChar)
      if (!columnInfo) {
        newColumnsList.add(column)
        break
      }
      if (columnInfo && columnInfo[1]) columnInfo[1] = queryTableAlias(columnInfo[1])
      newColumnsList.add(columnInfo.join(symbolChar))
    }
    return Array.from(newColumnsList)
  }

  function refreshColumnList(columnList) {
    const columns = columnListTableAlias(columnList)
    columnList.clear()
    columns.forEach(col => columnList.add(col))
  }

  function getSurroundFromLiteralType(literal) {
    switch (literal.type) {
      case 'double_quote_string':
        return '"'
      case 'single_quote_string':
        return "'"
      case 'backticks_quote_string':
        return '`'
      default:
        return ''
    }
  }

  const cmpPrefixMap = {
    '+': true,
    '-': true,
    '*': true,
    '/': true,
    '>': true,
    '<': true,
    '!': true,
    '=': true,

    //between
    'B': true,
    'b': true,
    //for is or in
    'I': true,
    'i': true,
    //for like
    'L': true,
    'l': true,
    //for not
    'N': true,
    'n': true
  };

  // used for dependency analysis
  let varList = [];

  // cannery: node-sql-parser's table and column bookkeeping, which cannery never reads, is kept
  // empty: it rewrote the whole column list at every FROM item, a quarter of a parse's time (15).
  class Unkept extends Set { add() { return this } }
  const tableList = new Unkept();
  const columnList = new Unkept();
  const tableAlias = {};
}

start
  = __ n:(multiple_stmt) {
    return n
  }

multiple_stmt
  = head:stmt tail:(__ SEMICOLON __ stmt)* {
      const headAst = head && head.ast || head
      const cur = tail && tail.length && tail[0].length >= 4 ? [headAst] : headAst;
      for (let i = 0; i < tail.length; i++) {
        if(!tail[i][3] || tail[i][3].length === 0) continue;
        cur.push(tail[i][3] && tail[i][3].ast || tail[i][3]);
      }
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: cur
      }
    }

stmt
  = query_statement / crud_stmt

crud_stmt
  = union_stmt
  / update_stmt
  / replace_insert_stmt
  / insert_no_columns_stmt
  / insert_into_set
  / delete_stmt
  / cmd_stmt
  / proc_stmts

update_stmt
  = KW_UPDATE    __
    t:table_ref_list __
    KW_SET       __
    l:set_list   __
    f:from_clause? __
    w:where_clause? __
    or:order_by_clause? __
    lc:limit_clause? {
      const addTableFun = (tableInfo) => {
        const { server, db, schema, as, table, join } = tableInfo
        const action = join ? 'select' : 'update'
        const fullName = [server, db, schema].filter(Boolean).join('.') || null
        if (db) dbObj[table] = fullName
        if (table) tableList.add(`${action}::${fullName}::${table}`)
      }
      if (t) t.forEach(addTableFun);
      if (f) f.forEach(addTableFun);
      if(l) {
        l.forEach(col => columnList.add(`update::${col.table}::${col.column}`));
      }
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: 'update',
          table: t,
          set: l,
          where: w,
          orderby: or,
          limit: lc,
        }
      };
    }

delete_stmt
  = KW_DELETE    __
    t: table_ref_list? __
    f:from_clause? __
    w:where_clause? __
    or:order_by_clause? __
    l:limit_clause? {
      if(t) t.forEach(tt => tableList.add(`delete::${tt.db}::${tt.table}`));
     if(f) f.forEach(tableInfo => {
        const { db, as, table, join } = tableInfo
        const action = join ? 'select' : 'delete'
        if (table) tableList.add(`${action}::${db}::${table}`)
        if (!join) columnList.add(`delete::${table}::(.*)`);
      });
      if (t === null && f.length === 1) {
        const tableInfo = f[0]
        t = [{
          db: tableInfo.db,
          table: tableInfo.table,
          as: tableInfo.as,
          addition: true
        }]
      }
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: 'delete',
          table: t,
          from: f,
          where: w,
          orderby: or,
          limit: l,
        }
      };
    }

replace_insert_stmt
  = ri:replace_insert       __
    KW_INTO?                 __
    t:table_name  __
    p:insert_partition? __ LPAREN __ c:column_list  __ RPAREN __
    v:insert_value_clause __
    odp:on_duplicate_update_stmt? {
      if (t) {
        tableList.add(`insert::${t.db}::${t.table}`)
        t.as = null
      }
      if (c) {
        let table = t && t.table || null
        if(Array.isArray(v.values)) {
          v.values.forEach((row, idx) => {
            if(row.value.length != c.length) {
              throw new Error(`Error: column count doesn't match value count at row ${idx+1}`)
            }
          })
        }
        c.forEach(c => columnList.add(`insert::${table}::${c}`));
      }
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: ri,
          table: [t],
          columns: c,
          values: v,
          partition: p,
          on_duplicate_update: odp,
        }
      };
    }

insert_no_columns_stmt
  = ri:replace_insert       __
    ig:KW_IGNORE?  __
    it:KW_INTO?   __
    t:table_name  __
    p:insert_partition? __
    v:insert_value_clause __
    odp: on_duplicate_update_stmt? {
      if (t) {
        tableList.add(`insert::${t.db}::${t.table}`)
        columnList.add(`insert::${t.table}::(.*)`);
        t.as = null
      }
      const prefix = [ig, it].filter(v => v).map(v => v[0] && v[0].toLowerCase()).join(' ')
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: ri,
          table: [t],
          columns: null,
          values: v,
          partition: p,
          prefix,
          on_duplicate_update: odp,
        }
      };
    }

insert_into_set
  = ri:replace_insert __
    KW_INTO? __
    t:table_name  __
    p:insert_partition? __
    KW_SET       __
    l:set_list   __
    odp:on_duplicate_update_stmt? {
      if (t) {
        tableList.add(`insert::${t.db}::${t.table}`)
        columnList.add(`insert::${t.table}::(.*)`);
        t.as = null
      }
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: ri,
          table: [t],
          columns: null,
          partition: p,
          set: l,
          on_duplicate_update: odp,
        }
      };
    }

cmd_stmt
  = analyze_stmt
  / attach_stmt
  / drop_stmt
  / create_stmt
  / truncate_stmt
  / rename_stmt
  / call_stmt
  / use_stmt
  / alter_stmt
  / set_stmt
  / lock_stmt
  / unlock_stmt
  / show_stmt
  / desc_stmt

proc_stmts
  = proc_stmt*

proc_stmt
  = &{ varList = []; return true; } __ s:(assign_stmt / return_stmt) {
      return { stmt: s, vars: varList };
    }

assign_stmt_list
  = head:assign_stmt tail:(__ COMMA __ assign_stmt)* {
    return createList(head, tail);
  }

assign_stmt
  = va:(var_decl / without_prefix_var_decl) __ s: (KW_ASSIGN / KW_ASSIGIN_EQUAL) __ e:proc_expr {
    return {
      type: 'assign',
      left: va,
      symbol: s,
      right: e
    };
  }


return_stmt
  = KW_RETURN __ e:proc_expr {
      return { type: 'return', expr: e };
    }

proc_expr
  = select_stmt
  / proc_join
  / proc_additive_expr
  / proc_array

proc_additive_expr
  = head:proc_multiplicative_expr
    tail:(__ additive_operator  __ proc_multiplicative_expr)* {
      return createBinaryExprChain(head, tail);
    }

proc_multiplicative_expr
  = head:proc_primary
    tail:(__ multiplicative_operator  __ proc_primary)* {
      return createBinaryExprChain(head, tail);
    }

proc_join
  = lt:var_decl __ op:join_op  __ rt:var_decl __ expr:on_clause {
      return {
        type: 'join',
        ltable: lt,
        rtable: rt,
        op: op,
        on: expr
      };
    }

proc_primary
  = literal
  / var_decl
  / proc_func_call
  / param
  / LPAREN __ e:proc_additive_expr __ RPAREN {
      e.parentheses = true;
      return e;
    }

proc_func_call
  = name:proc_func_name __ LPAREN __ l:proc_primary_list? __ RPAREN {
      //compatible with original func_call
      return {
        type: 'function',
        name: name,
        args: {
          type: 'expr_list',
          value: l
        },
        ...getLocationObject(),
      };
    }
  / name:proc_func_name {
    return {
        type: 'function',
        name: name,
        args: null,
        ...getLocationObject(),
      };
  }

proc_primary_list
  = head:proc_primary tail:(__ COMMA __ proc_primary)* {
      return createList(head, tail);
    }

proc_array
  = LBRAKE __ l:proc_primary_list __ RBRAKE {
    return { type: 'array', value: l, brackets: true };
  }

set_list
  = head:set_item tail:(__ COMMA __ set_item)* {
      return createList(head, tail);
    }

/**
 * here only use `additive_expr` to support 'col1 = col1+2'
 * if you want to use lower operator, please use '()' like below
 * 'col1 = (col2 > 3)'
 */
set_item
  = tbl:(ident __ DOT)? __ c:column_without_kw __ '=' __ v:expr {
      return { column: c, value: v, table: tbl && tbl[0] };
  }
  / tbl:(ident __ DOT)? __ c:column_without_kw __ '=' __ KW_VALUES __ LPAREN __ v:column_ref __ RPAREN {
      return { column: c, value: v, table: tbl && tbl[0], keyword: 'values' };
  }

replace_insert
  = KW_INSERT   { return 'insert'; }
  / KW_REPLACE  { return 'replace'; }

insert_partition
  = KW_PARTITION __ LPAREN __ head:ident_name tail:(__ COMMA __ ident_name)* __ RPAREN {
      return createList(head, tail)
    }
  / KW_PARTITION __ v: value_item {
    return v
  }

insert_value_clause
  = value_clause
  / u:union_stmt {
      return u.ast
  }

on_duplicate_update_stmt
  = KW_ON __ 'DUPLICATE'i __ KW_KEY __ KW_UPDATE __ s:set_list {
    return {
      keyword: 'on duplicate key update',
      set: s
    }
  }

analyze_stmt
  = a:KW_ANALYZE __ t:table_name __ {
      tableList.add(`${a}::${t.db}::${t.table}`);
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a.toLowerCase(),
          table: t
        }
      };
    }

attach_stmt
  = a:KW_ATTACH __ db: KW_DATABASE __ e:expr __ as:KW_AS __ schema:ident __ {
      // tableList.add(`${a}::${t.db}::${t.table}`);
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a.toLowerCase(),
          database: db,
          expr: e,
          as: as && as[0].toLowerCase(),
          schema,
        }
      };
    }

drop_stmt
  = a:KW_DROP __
    r:KW_TABLE __
    t:table_ref_list {
      if(t) t.forEach(tt => tableList.add(`${a}::${tt.db}::${tt.table}`));
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a.toLowerCase(),
          keyword: r.toLowerCase(),
          name: t
        }
      };
    }
  / a:KW_DROP __
    r:KW_INDEX __
    i:column_ref __
    KW_ON __
    t:table_name __
    op:drop_index_opt? __ {
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a.toLowerCase(),
          keyword: r.toLowerCase(),
          name: i,
          table: t,
          options: op
        }
      };
    }

create_stmt
  = create_table_stmt
  / create_db_stmt
  / create_view_stmt

truncate_stmt
  = a:KW_TRUNCATE  __
    kw:KW_TABLE? __
    t:table_ref_list {
      if(t) t.forEach(tt => tableList.add(`${a}::${tt.db}::${tt.table}`));
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a.toLowerCase(),
          keyword: kw && kw.toLowerCase() || 'table',
          name: t
        }
      };
    }

rename_stmt
  = KW_RENAME  __
    KW_TABLE __
    t:table_to_list {
      t.forEach(tg => tg.forEach(dt => dt.table && tableList.add(`rename::${dt.db}::${dt.table}`)))
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: 'rename',
          table: t
        }
      };
    }

 call_stmt
  = KW_CALL __
  e: proc_func_call {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'call',
        expr: e
      }
    }
  }

use_stmt
  = KW_USE  __
    d:ident {
      tableList.add(`use::${d}::null`);
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: 'use',
          db: d
        }
      };
    }

alter_stmt
  = alter_table_stmt

set_stmt
  = KW_SET __
  kw: (KW_GLOBAL / KW_SESSION / KW_LOCAL / KW_PERSIST / KW_PERSIST_ONLY)? __
  a: assign_stmt_list {
    a.keyword = kw
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'set',
        keyword: kw,
        expr: a
      }
    }
  }

lock_stmt
  = KW_LOCK __ KW_TABLES __ ltl:lock_table_list {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'lock',
        keyword: 'tables',
        tables: ltl
      }
    }
  }

unlock_stmt
  = KW_UNLOCK __ KW_TABLES {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'unlock',
        keyword: 'tables'
      }
    }
  }

show_stmt
  = KW_SHOW __ t:('BINARY'i / 'MASTER'i) __ 'LOGS'i {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'show',
        suffix: 'logs',
        keyword: t.toLowerCase()
      }
    }
  }
  / KW_SHOW __ 'BINLOG'i __ 'EVENTS'i __ ins:in_op_right? __ from: from_clause? __ limit: limit_clause? {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'show',
        suffix: 'events',
        keyword: 'binlog',
        in: ins,
        from,
        limit,
      }
    }
  }
  / KW_SHOW __ k:(('CHARACTER'i __ 'SET'i) / 'COLLATION'i) __ e:(like_op_right / where_clause)? {
    let keyword = Array.isArray(k) && k || [k]
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'show',
        suffix: keyword[2] && keyword[2].toLowerCase(),
        keyword: keyword[0].toLowerCase(),
        expr: e
      }
    }
  }
  / show_grant_stmt

 desc_stmt
  = (KW_DESC / KW_DESCRIBE) __ t:ident {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'desc',
        table: t
      }
    };
  }

var_decl
  = p: KW_VAR_PRE d: without_prefix_var_decl {
    //push for analysis
    return {
      type: 'var',
      ...d,
      prefix: p
    };
  }

without_prefix_var_decl
  = name:ident_name m:mem_chain {
    //push for analysis
    varList.push(name);
    return {
      type: 'var',
      name: name,
      members: m,
      prefix: null,
    };
  }
  / n:literal_numeric {
    return {
      type: 'var',
      name: n.value,
      members: [],
      quoted: null,
      prefix: null,
    }
  }

value_item
  = LPAREN __ l:expr_list  __ RPAREN {
      return l;
    }

value_clause
  = KW_VALUES __ l:value_list  { return { type: 'values', values: l } }

drop_index_opt
  = head:(ALTER_ALGORITHM / ALTER_LOCK) tail:(__ (ALTER_ALGORITHM / ALTER_LOCK))* {
    return createList(head, tail, 1)
  }

if_not_exists_stmt
  = 'IF'i __ KW_NOT __ KW_EXISTS {
    return 'IF NOT EXISTS'
  }

create_table_stmt
  = a:KW_CREATE __
    or:(KW_OR __ KW_REPLACE)? __
    tp:(KW_TEMP / KW_TEMPORARY)? __
    KW_TABLE __
    ife:if_not_exists_stmt? __
    t:table_name __
    c:create_table_definition? __
    to:table_options? __
    as:KW_AS? __
    qe:union_stmt? {
      if(t) tableList.add(`create::${t.db}::${t.table}`)
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a[0].toLowerCase(),
          keyword: 'table',
          temporary: tp && tp[0].toLowerCase(),
          if_not_exists:ife,
          table: [t],
          replace: or && 'or replace',
          as: as && as[0].toLowerCase(),
          query_expr: qe && qe.ast,
          create_definitions: c,
          table_options: to
        }
      }
    }
  / a:KW_CREATE __
    tp:KW_TEMPORARY? __
    KW_TABLE __
    ife:if_not_exists_stmt? __
    t:table_ref_list __
    lt:create_like_table {
      if(t) t.forEach(tt => tableList.add(`create::${tt.db}::${tt.table}`));
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a[0].toLowerCase(),
          keyword: 'table',
          temporary: tp && tp[0].toLowerCase(),
          if_not_exists:ife,
          table: t,
          like: lt
        }
      }
    }

create_db_stmt
  = a:KW_CREATE __
    k:(KW_DATABASE / KW_SCHEMA) __
    ife:if_not_exists_stmt? __
    t:proc_func_name __
    c:create_db_definition? {
      const keyword = k.toLowerCase()
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: a[0].toLowerCase(),
          keyword,
          if_not_exists:ife,
          [keyword]: { db: t.schema, schema: t.name },
          create_definitions: c,
        }
      }
    }

view_with
  = KW_WITH __ c:("CASCADED"i / "LOCAL"i) __ "CHECK"i __ "OPTION" {
    // => string
    return `with ${c.toLowerCase()} check option`
  }
  / KW_WITH __ "CHECK"i __ "OPTION" {
    // => string
    return 'with check option'
  }

with_view_option
  = 'check_option'i __ KW_ASSIGIN_EQUAL __ t:("CASCADED"i / "LOCAL"i) {
    return  { type: 'check_option', value: t, symbol: '=' }
  }
  / k:('security_barrier'i / 'security_invoker'i) __ KW_ASSIGIN_EQUAL __ t:literal_bool {
    return { type: k.toLowerCase(), value: t.value ? 'true' : 'false', symbol: '=' }
  }
with_view_options
  = head:with_view_option tail:(__ COMMA __ with_view_option)* {
      return createList(head, tail);
    }
create_view_stmt
  = a:KW_CREATE __ or:(KW_OR __ KW_REPLACE)? __ tp:(KW_TEMP / KW_TEMPORARY)? __ r:KW_RECURSIVE? __
  KW_VIEW __ v:table_name __ c:(LPAREN __ column_list __ RPAREN)? __ wo:(KW_WITH __ LPAREN __ with_view_options __ RPAREN)? __
  KW_AS __ s:select_stmt __ w:view_with? {
    v.view = v.table
    delete v.table
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: a[0].toLowerCase(),
        keyword: 'view',
        replace: or && 'or replace',
        temporary: tp && tp[0].toLowerCase(),
        recursive: r && r.toLowerCase(),
        columns: c && c[2],
        select: s,
        view: v,
        with_options: wo && wo[4],
        with: w,
      }
    }
  }

alter_table_stmt
  = KW_ALTER  __
    KW_TABLE __
    t:table_ref_list __
    e:alter_action_list {
      if (t && t.length > 0) t.forEach(table => tableList.add(`alter::${table.db}::${table.table}`));
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: {
          type: 'alter',
          table: t,
          expr: e
        }
      };
    }

lock_table_list
  = head:lock_table tail:(__ COMMA __ lock_table)* {
    return createList(head, tail);
  }

show_grant_stmt
  = KW_SHOW __ 'GRANTS'i __ f:show_grant_for? {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        type: 'show',
        keyword: 'grants',
        for: f,
      }
    }
  }

mem_chain
  = l:('.' ident_name)* {
    const s = [];
    for (let i = 0; i < l.length; i++) {
      s.push(l[i][1]);
    }
    return s;
  }

value_list
  = head:value_item tail:(__ COMMA __ value_item)* {
      return createList(head, tail);
    }

ALTER_ALGORITHM
  = "ALGORITHM"i __ s:KW_ASSIGIN_EQUAL? __ val:("DEFAULT"i / "INSTANT"i / "INPLACE"i / "COPY"i) {
    return {
      type: 'alter',
      keyword: 'algorithm',
      resource: 'algorithm',
      symbol: s,
      algorithm: val
    }
  }

ALTER_LOCK
  = "LOCK"i __ s:KW_ASSIGIN_EQUAL? __ val:("DEFAULT"i / "NONE"i / "SHARED"i / "EXCLUSIVE"i) {
    return {
      type: 'alter',
      keyword: 'lock',
      resource: 'lock',
      symbol: s,
      lock: val
    }
  }

create_table_definition
  = LPAREN __ head:create_definition tail:(__ COMMA __ create_definition)* __ RPAREN {
      return createList(head, tail);
    }

create_definition
  = create_column_definition
  / create_index_definition
  / create_fulltext_spatial_index_definition

column_definition_opt
  = n:(literal_not_null / literal_null) {
    if (n && !n.value) n.value = 'null'
    return { nullable: n }
  }
  / d:default_expr {
    return { default_val: d }
  }
  / a:('AUTO_INCREMENT'i) {
    return { auto_increment: a.toLowerCase() }
  }
  / 'UNIQUE'i __ k:('KEY'i)? {
    const sql = ['unique']
    if (k) sql.push(k)
    return { unique: sql.join(' ').toLowerCase('') }
  }
  / p:('PRIMARY'i)? __ 'KEY'i {
    const sql = []
    if (p) sql.push('primary')
    sql.push('key')
    return { primary_key: sql.join(' ').toLowerCase('') }
  }
  / co:keyword_comment {
    return { comment: co }
  }
  / ca:collate_expr {
    return { collate: ca }
  }
  / cf:column_format {
    return { column_format: cf }
  }
  / s:storage {
    return { storage: s }
  }
  / re:reference_definition {
    return { reference_definition: re }
  }

column_definition_opt_list
  = head:column_definition_opt __ tail:(__ column_definition_opt)* {
    let opt = head
    for (let i = 0; i < tail.length; i++) {
      opt = { ...opt, ...tail[i][1] }
    }
    return opt
  }

create_column_definition
  = c:column_ref __
    d:data_type __
    cdo:column_definition_opt_list? {
      columnList.add(`create::${c.table}::${c.column}`)
      return {
        column: c,
        definition: d,
        resource: 'column',
        ...(cdo || {})
      }
    }

table_options
  = head:table_option tail:(__ COMMA? __ table_option)* {
    return createList(head, tail)
  }

create_like_table
  = create_like_table_simple
  / LPAREN __ e:create_like_table  __ RPAREN {
      e.parentheses = true;
      return e;
  }

create_db_definition
  = head:create_option_character_set tail:(__ create_option_character_set)* {
    return createList(head, tail, 1)
  }

alter_action_list
  = head:alter_action tail:(__ COMMA __ alter_action)* {
      return createList(head, tail);
    }

lock_table
  = t:table_base __ lt:lock_type {
    tableList.add(`lock::${t.db}::${t.table}`)
    return {
      table: t,
      lock_type: lt
    }
  }

show_grant_for
  = 'FOR'i __ n:ident __ h:(KW_VAR__PRE_AT __ ident)? __ u:show_grant_for_using? {
    return {
      user: n,
      host: h && h[2],
      role_list: u
    }
  }

create_constraint_definition
  = create_constraint_primary
  / create_constraint_unique
  / create_constraint_foreign
  / create_constraint_check

create_index_definition
  = kc:(KW_INDEX / KW_KEY) __
    c:column? __
    t:index_type? __
    de:cte_column_definition __
    id:index_options? __
    {
      return {
        index: c,
        definition: de,
        keyword: kc.toLowerCase(),
        index_type: t,
        resource: 'index',
        index_options: id,
      }
    }

create_fulltext_spatial_index_definition
  = p: (KW_FULLTEXT / KW_SPATIAL) __
    kc:(KW_INDEX / KW_KEY)? __
    c:column? __
    de:cte_column_definition __
    id:index_options? {
      return {
        index: c,
        definition: de,
        keyword: kc && `${p.toLowerCase()} ${kc.toLowerCase()}` || p.toLowerCase(),
        index_options: id,
        resource: 'index',
      }
    }

default_expr
  = KW_DEFAULT __ ce:expr {
    return {
      type: 'default',
      value: ce
    }
  }

keyword_comment
  = k:KW_COMMENT __ s:KW_ASSIGIN_EQUAL? __ c:literal_string {
    return {
      type: k.toLowerCase(),
      keyword: k.toLowerCase(),
      symbol: s,
      value: c,
    }
  }

collate_expr
  = KW_COLLATE __ s:KW_ASSIGIN_EQUAL? __ ca:ident {
    return {
      type: 'collate',
      keyword: 'collate',
      collate: {
        name: ca,
        symbol: s,
      }
    }
  }

column_format
  = k:'COLUMN_FORMAT'i __ f:('FIXED'i / 'DYNAMIC'i / 'DEFAULT'i) {
    return {
      type: 'column_format',
      value: f.toLowerCase()
    }
  }

storage
  = k:'STORAGE'i __ s:('DISK'i / 'MEMORY'i) {
    return {
      type: 'storage',
      value: s.toLowerCase()
    }
  }

reference_definition
  = kc:KW_REFERENCES __
  t:table_ref_list __
  de:cte_column_definition __
  m:('MATCH FULL'i / 'MATCH PARTIAL'i / 'MATCH SIMPLE'i)? __
  od:on_reference? __
  ou:on_reference? {
    const on_action = []
    return {
        definition: de,
        table: t,
        keyword: kc.toLowerCase(),
        match: m && m.toLowerCase(),
        on_action: [od, ou].filter(v => v)
      }
  }
  / oa:on_reference {
    return {
      on_action: [oa]
    }
  }

table_option_list_item
  = k:('expiration_timestamp'i / 'partition_expiration_days'i / 'require_partition_filter'i / 'kms_key_name'i / 'friendly_name'i / 'description'i / 'labels'i / 'default_rounding_mode'i) __ s:(KW_ASSIGIN_EQUAL)? __ v:expr {
    return {
      keyword: k,
      symbol: '=',
      value: v
    }
  }
table_option_list
  = head:table_option_list_item tail:(__ COMMA __ table_option_list_item)* {
    return createList(head, tail);
  }
table_option
  = kw:('AUTO_INCREMENT'i / 'AVG_ROW_LENGTH'i / 'KEY_BLOCK_SIZE'i / 'MAX_ROWS'i / 'MIN_ROWS'i / 'STATS_SAMPLE_PAGES'i) __ s:(KW_ASSIGIN_EQUAL)? __ v:literal_numeric {
    return {
      keyword: kw.toLowerCase(),
      symbol: s,
      value: v.value
    }
  }
  / create_option_character_set
  / kw:(KW_COMMENT / 'CONNECTION'i) __ s:(KW_ASSIGIN_EQUAL)? __ c:literal_string {
    return {
      keyword: kw.toLowerCase(),
      symbol: s,
      value: `'${c.value}'`
    }
  }
  / kw:'COMPRESSION'i __ s:(KW_ASSIGIN_EQUAL)? __ v:("'"('ZLIB'i / 'LZ4'i / 'NONE'i)"'") {
    return {
      keyword: kw.toLowerCase(),
      symbol: s,
      value: v.join('').toUpperCase()
    }
  }
  / kw:'ENGINE'i __ s:(KW_ASSIGIN_EQUAL)? __ c:ident_name {
    return {
      keyword: kw.toLowerCase(),
      symbol: s,
      value: c.toUpperCase()
    }
  }
  / KW_PARTITION __ KW_BY __ v:expr {
    return {
      keyword: 'partition by',
      value: v
    }
  }
  / 'CLUSTER'i __ 'BY'i __ c:column_list {
    return {
      keyword: 'cluster by',
      value: c
    }
  }
  / 'OPTIONS'i __ LPAREN __ v:table_option_list __ RPAREN {
    return {
      keyword: 'options',
      parentheses: true,
      value: v
    }
  }

create_like_table_simple
  = KW_LIKE __ t: table_ref_list {
    return {
      type: 'like',
      table: t
    }
  }

create_option_character_set
  = kw:KW_DEFAULT? __ t:(create_option_character_set_kw / 'CHARSET'i / 'COLLATE'i) __ s:(KW_ASSIGIN_EQUAL)? __ v:ident_without_kw_type {
    return {
      keyword: kw && `${kw[0].toLowerCase()} ${t.toLowerCase()}` || t.toLowerCase(),
      symbol: s,
      value: v
    }
  }

alter_action
  = ALTER_ADD_COLUMN
  / ALTER_DROP_COLUMN
  / ALTER_RENAME_TABLE

lock_type
  = "READ"i __ s:("LOCAL"i)? {
    return {
      type: 'read',
      suffix: s && 'local'
    }
  }
  / p:("LOW_PRIORITY"i)? __ "WRITE"i {
    return {
      type: 'write',
      prefix: p && 'low_priority'
    }
  }

show_grant_for_using
  = KW_USING __ l:show_grant_for_using_list {
    return l
  }

show_grant_for_using_list
  = head:ident tail:(__ COMMA __ ident)* {
    return createList(head, tail);
  }


create_constraint_primary
  = kc:constraint_name? __
  p:('PRIMARY'i __ 'KEY'i) __
  t:index_type? __
  de:cte_column_definition __
  id:index_options? {
    return {
        constraint: kc && kc.constraint,
        definition: de,
        constraint_type: `${p[0].toLowerCase()} ${p[2].toLowerCase()}`,
        keyword: kc && kc.keyword,
        index_type: t,
        resource: 'constraint',
        index_options: id,
      }
  }

create_constraint_unique
  = kc:constraint_name? __
  u:KW_UNIQUE __
  p:(KW_INDEX / KW_KEY)? __
  i:column? __
  t:index_type? __
  de:cte_column_definition __
  id:index_options? {
    return {
        constraint: kc && kc.constraint,
        definition: de,
        constraint_type: p && `${u.toLowerCase()} ${p.toLowerCase()}` || u.toLowerCase(),
        keyword: kc && kc.keyword,
        index_type: t,
        index: i,
        resource: 'constraint',
        index_options: id
      }
  }

create_constraint_foreign
  = kc:constraint_name? __
  p:('FOREIGN KEY'i) __
  i:column? __
  de:cte_column_definition __
  id:reference_definition? {
    return {
        constraint: kc && kc.constraint,
        definition: de,
        constraint_type: p,
        keyword: kc && kc.keyword,
        index: i,
        resource: 'constraint',
        reference_definition: id
      }
  }

create_constraint_check
  = kc:constraint_name? __ u:'CHECK'i __ nfr:('NOT'i __ 'FOR'i __ 'REPLICATION'i __)? LPAREN __ c:expr __ RPAREN {
    return {
        constraint_type: u.toLowerCase(),
        keyword: kc && kc.keyword,
        constraint: kc && kc.constraint,
        index_type: nfr && { keyword: 'not for replication' },
        definition: [c],
        resource: 'constraint',
      }
  }

index_type
  = KW_USING __
  t:("BTREE"i / "HASH"i) {
    return {
      keyword: 'using',
      type: t.toLowerCase(),
    }
  }

cte_column_definition
  = LPAREN __ head:column tail:(__ COMMA __ column)* __ RPAREN {
      return createList(head, tail);
    }

index_options
  = head:index_option tail:(__ index_option)* {
    const result = [head];
    for (let i = 0; i < tail.length; i++) {
      result.push(tail[i][1]);
    }
    return result;
  }

index_option
  = k:KW_KEY_BLOCK_SIZE __ e:(KW_ASSIGIN_EQUAL)? __ kbs:literal_numeric {
    return {
      type: k.toLowerCase(),
      symbol: e,
      expr: kbs
    };
  }
  / index_type
  / "WITH"i __ "PARSER"i __ pn:ident_name {
    return {
      type: 'with parser',
      expr: pn
    }
  }
  / k:("VISIBLE"i / "INVISIBLE"i) {
    return {
      type: k.toLowerCase(),
      expr: k.toLowerCase()
    }
  }
  / keyword_comment

on_reference
  = KW_ON __ kw:(KW_DELETE / KW_UPDATE) __ ro:reference_option {
    // => { type: 'on delete' | 'on update'; value: reference_option; }
    return {
      type: `on ${kw[0].toLowerCase()}`,
      value: ro
    }
  }

create_option_character_set_kw
  = 'CHARACTER'i __ 'SET'i {
    return 'CHARACTER SET'
  }

ALTER_ADD_COLUMN
  = KW_ADD __
    kc:KW_COLUMN? __
    cd:create_column_definition {
      return {
        action: 'add',
        ...cd,
        keyword: kc,
        resource: 'column',
        type: 'alter',
      }
    }

ALTER_DROP_COLUMN
  = KW_DROP __
    kc:KW_COLUMN? __
    c:column_ref {
      return {
        action: 'drop',
        column: c,
        keyword: kc,
        resource: 'column',
        type: 'alter',
      }
    }

ALTER_RENAME_TABLE
  = KW_RENAME __
  kw:(KW_TO / KW_AS)? __
  tn:ident {
    return {
      action: 'rename',
      type: 'alter',
      resource: 'table',
      keyword: kw && kw[0].toLowerCase(),
      table: tn
    }
  }

constraint_name
  = kc:KW_CONSTRAINT __
  c:ident? {
    return {
      keyword: kc.toLowerCase(),
      constraint: c
    }
  }

reference_option
  = kw:KW_CURRENT_TIMESTAMP __ LPAREN __ l:expr_list? __ RPAREN {
    return {
      type: 'function',
      name: { name: [{ type: 'origin', value: kw }]},
      args: l
    }
  }
  / kc:('RESTRICT'i / 'CASCADE'i / 'SET NULL'i / 'NO ACTION'i / 'SET DEFAULT'i / KW_CURRENT_TIMESTAMP) {
    return {
      type: 'origin',
      value: kc.toLowerCase()
    }
  }

KW_UPDATE   = "UPDATE"i     !ident_start
KW_CREATE   = "CREATE"i     !ident_start
KW_DELETE   = "DELETE"i     !ident_start
KW_INSERT   = "INSERT"i     !ident_start
KW_ASSIGN = ':='
KW_ASSIGIN_EQUAL = '='
KW_RETURN   = 'return'i
KW_REPLACE  = "REPLACE"i    !ident_start
KW_ANALYZE  = "ANALYZE"i    !ident_start
KW_ATTACH   = "ATTACH"i     !ident_start
KW_DATABASE = "DATABASE"i   !ident_start
KW_RENAME   = "RENAME"i     !ident_start
KW_SHOW     = "SHOW"i       !ident_start
KW_DESCRIBE = "DESCRIBE"i   !ident_start
KW_VAR__PRE_AT = '@'
KW_VAR__PRE_AT_AT = '@@'
KW_VAR_PRE_DOLLAR = '$'
KW_VAR_PRE = KW_VAR__PRE_AT_AT / KW_VAR__PRE_AT / KW_VAR_PRE_DOLLAR
KW_TEMPORARY = "TEMPORARY"i !ident_start
KW_TEMP = "TEMP"i !ident_start
KW_SCHEMA   = "SCHEMA"i     !ident_start
KW_ALTER    = "ALTER"i      !ident_start
KW_SPATIAL  = "SPATIAL"i    !ident_start
KW_KEY_BLOCK_SIZE = "KEY_BLOCK_SIZE"i !ident_start

query_statement
  = query_expr
  / s:('(' __ select_stmt __ ')') {
      return {
        ...s[2],
        parentheses_symbol: true,
      }
    }

query_expr
  = s:union_stmt __ o:order_by_clause?  __ l:limit_clause? __
  {
    return {
      tableList: Array.from(tableList),
      columnList: columnListTableAlias(columnList),
      ast: {
        ...s.ast,
        _orderby: o,
        _limit: l,
        _parentheses: s._parentheses
      }
    }
  }

// cannery: a mode before the operator and a matching by name after it (`FULL UNION ALL BY NAME`,
// `UNION ALL CORRESPONDING BY (a, b)`): a `set_op` node; the plain operator stays a string.
set_op
  = m:set_op_mode? __ o:set_op_keyword __ c:set_op_match? {
    if (!m && !c) return o
    return { type: 'set_op', operator: o, mode: m, match: c ? c.match : null, columns: c ? c.columns : null }
  }

set_op_keyword
  = u:KW_UNION __ s:(KW_ALL / KW_DISTINCT)? {
    return s ? `union ${s.toLowerCase()}` : 'union'
  }
  // cannery: INTERSECT ALL and EXCEPT ALL (patch 27), where stock read DISTINCT only.
  / u:('INTERSECT'i / 'EXCEPT'i) __ s:(KW_DISTINCT / KW_ALL) {
    return `${u.toLowerCase()} ${s.toLowerCase()}`
  }

set_op_mode
  = KW_INNER { return 'inner' }
  / KW_FULL __ KW_OUTER? { return 'full' }
  / KW_LEFT __ KW_OUTER? { return 'left' }
  / KW_OUTER { return 'full' }

set_op_match
  = KW_BY __ 'NAME'i !ident_start c:(__ KW_ON __ LPAREN __ set_op_columns __ RPAREN)? {
    return { match: 'by name', columns: c ? c[5] : null }
  }
  / s:('STRICT'i !ident_start __)? 'CORRESPONDING'i !ident_start c:(__ KW_BY __ LPAREN __ set_op_columns __ RPAREN)? {
    return { match: s ? 'strict corresponding' : 'corresponding', columns: c ? c[5] : null }
  }

set_op_columns
  = head:bigquery_column tail:(__ COMMA __ bigquery_column)* {
    return createList(head, tail)
  }

union_stmt
  = union_stmt_nake
  / s:('(' __ union_stmt_nake __ ')') {
      return {
        ...s[2],
        _parentheses: true
      }
    }

union_stmt_nake
  = head:(select_stmt / s:set_in_parentheses &(__ set_op) { return s }) tail:(__ set_op? __ (select_stmt / set_in_parentheses))* __ ob: order_by_clause? __ l:limit_clause?  {
      let cur = head
      for (let i = 0; i < tail.length; i++) {
        cur._next = tail[i][3]
        cur.set_op = tail[i][1]
        cur = cur._next
      }
      // cannery: an ORDER BY / LIMIT after a parenthesised last member orders and limits the whole
      // query (`(SELECT ...) UNION ALL (SELECT ...) ORDER BY 1 LIMIT 10`); stock parsed and dropped them.
      if (ob) head._outer_orderby = ob
      if (l) head._outer_limit = l
      return {
        tableList: Array.from(tableList),
        columnList: columnListTableAlias(columnList),
        ast: head
      }
    }
// cannery: a set operation in parentheses as a member of another (`(a UNION ALL b) EXCEPT DISTINCT
// c`): a `set_query` node holding its query; a first member only where a set operator follows, so
// a whole query in parentheses is read as before.
set_in_parentheses
  = LPAREN __ u:union_stmt_nake __ RPAREN {
    return { type: 'set_query', ast: u.ast, parentheses_symbol: true, ...getLocationObject() }
  }

select_stmt
  = select_stmt_nake
  / s:('(' __ select_stmt __ ')') {
      return {
        ...s[2],
        parentheses_symbol: true
      }
    }

with_clause
  = KW_WITH __ head:cte_definition tail:(__ COMMA __ cte_definition)* {
      return createList(head, tail);
    }

cte_definition
  // cannery: a CTE name may be in backticks: { type: 'backticks_quote_string', value }.
  // cannery: no string as a CTE's name (`WITH 'c' AS (...)` is no BigQuery).
  = name:(backticks_quoted_ident / ident_name) __ KW_AS __ LPAREN __ stmt:union_stmt __ RPAREN {
    if (typeof name === 'string') name = { type: 'default', value: name }
    return { name, stmt };
  }

select_stmt_nake
  = __ cte:with_clause? __ KW_SELECT ___
    sv:struct_value? __
    d:(KW_ALL / KW_DISTINCT)? __
    c:column_clause     __
    f:from_clause?      __
    fs:for_sys_time_as_of? __
    w:where_clause?     __
    g:group_by_clause?  __
    h:having_clause?    __
    q:qualify_clause? __
    win:window_clause? __
    o:order_by_clause?  __
    l:limit_clause? {
      // cannery: WINDOW in BigQuery's place, after QUALIFY and before ORDER BY (stock: after LIMIT).
      if(Array.isArray(f)) f.forEach(info => info.table && tableList.add(`select::${[info.db, info.schema].filter(Boolean).join('.') || null}::${info.table}`));
      return {
          type: 'select',
          as_struct_val: sv,
          distinct: d,
          columns: c,
          from: f,
          for_sys_time_as_of: fs,
          where: w,
          with: cte,
          groupby: g,
          having: h,
          qualify: q,
          orderby: o,
          limit: l,
          window:win,
          ...getLocationObject()
      };
  }

for_sys_time_as_of
  = 'FOR'i __ 'SYSTEM_TIME'i __ 'AS'i __ 'OF'i __ e:expr {
    return {
      keyword: 'for system_time as of',
      expr: e
    }
  }
struct_value
  = a:KW_AS __ k:(KW_STRUCT / KW_VALUE) {
    return `${a[0].toLowerCase()} ${k.toLowerCase()}`
  }

expr_alias
  = e:binary_column_expr __ alias:alias_clause? {
      return { expr: e, as: alias, ...getLocationObject() };
    }

column_clause
  = c:columns_list __ COMMA? {
    return c
  }

columns_list
  = head:column_list_item tail:(__ COMMA __ column_list_item)* {
      return createList(head, tail);
    }

array_index
  = LBRAKE __ n:(literal_numeric / literal_string) __ RBRAKE {
    return { value: n }
  }

column_offset_expr_list
  = l:array_index+ {
    return l
  }
  / l:(LBRAKE __ (KW_OFFSET / KW_ORDINAL / KW_SAFE_OFFSET / KW_SAFE_ORDINAL) __ LPAREN __ (literal_numeric / literal_string) __ RPAREN __ RBRAKE)+ {
    return l.map(item => ({ name: item[2], value: item[6] }))
  }
column_offset_expr
  // cannery: a term, not an expression: an expression now takes its subscripts itself (primary).
  = n:primary_term __ l:column_offset_expr_list {
    return {
      expr: n,
      offset: l
    }
  }

column_list_item
  = p:(column_without_kw __ DOT)? STAR __ k:('EXCEPT'i / 'REPLACE'i) __ LPAREN __ c:columns_list __ RPAREN {
    const tbl = p && p[0]
    columnList.add(`select::${tbl}::(.*)`)
    return {
      expr_list: c,
      parentheses: true,
      expr: {
        type: 'column_ref',
        table: tbl,
        column: '*'
      },
      type: k.toLowerCase(),
      ...getLocationObject(),
    }
  }
  // cannery: no ALL for a star (`SELECT x, ALL FROM t` was `x, *`); SELECT ALL is select_stmt_nake's.
  / head: ((STAR !ident_start) / STAR) {
      columnList.add('select::null::(.*)')
      const item = {
        expr: {
          type: 'column_ref',
          table: null,
          column: '*'
        },
        as: null,
        ...getLocationObject()
      }
      return item
  }
  / tbl:column_without_kw __ DOT pro:((column_offset_expr / column_without_kw) __ DOT)? __ STAR {
      columnList.add(`select::${tbl}::(.*)`)
      let column = '*'
      const mid = pro && pro[0]
      if (typeof mid === 'string') column = `${mid}.*`
      if (mid && mid.expr && mid.offset) column = { ...mid, suffix: '.*' }
      return {
        expr: {
          type: 'column_ref',
          table: tbl,
          column,
        },
        as: null,
        ...getLocationObject()
      }
    }
  // cannery: `a[OFFSET(0)].b AS x` is an expression with an alias now (see primary), to the same node.
  / e:expr_alias {
    if (e.expr.type === 'double_quote_string' || e.expr.type === 'single_quote_string') {
      columnList.add(`select::null::${e.expr.value}`)
    }
    return e
  }

alias_clause
  = KW_AS __ i:alias_ident { return i; }
  // cannery: without AS, only an identifier: a quoted string there is a second literal, not an alias.
  / KW_AS? __ i:bigquery_column { return i; }

from_unnest_item
  = 'UNNEST'i __ LPAREN __ a:expr? __ RPAREN __ alias:alias_clause? __ wf:with_offset? {
    return {
      type: 'unnest',
      expr: a,
      parentheses: true,
      as:alias,
      with_offset: wf,
    }
  }

from_clause
  = KW_FROM __ l:table_ref_list __ op:(pivot_operator / unpivot_operator)? {
    if (l[0]) l[0].operator = op
    return l
  }

// cannery: each aggregate and each value may have an alias, which name the pivot's columns (stock
// dropped an aggregate's and could not read a value's); any aggregate call, COUNTIF and BIT_AND as
// well as SUM. A node of its own (`pivot_operator`), so that nothing reads it as the stock `pivot`.
pivot_operator
  = KW_PIVOT __ LPAREN __ a:pivot_aggregate_list __ 'FOR'i __ c:column_ref __ KW_IN __ LPAREN __ v:pivot_value_list __ RPAREN __ RPAREN __ as:alias_clause? {
    return {
      type: 'pivot_operator',
      aggregates: a,
      column: c,
      values: v,
      as,
      ...getLocationObject(),
    }
  }

// cannery: UNPIVOT (patch 30): one values column or a parenthesised list of them, each IN item one
// column or a parenthesised set of them, as GoogleSQL's grammar has it; the reader checks the counts.
unpivot_operator
  = 'UNPIVOT'i !ident_start __ n:(k:('INCLUDE'i / 'EXCLUDE'i) __ 'NULLS'i { return k.toLowerCase() })? __ LPAREN __ v:unpivot_names __ 'FOR'i __ c:ident_name __ KW_IN __ LPAREN __ head:unpivot_column tail:(__ COMMA __ unpivot_column)* __ RPAREN __ RPAREN __ as:alias_clause? {
    return {
      type: 'unpivot_operator',
      nulls: n,
      value_columns: v,
      name_column: c,
      columns: createList(head, tail),
      as,
      ...getLocationObject(),
    }
  }

unpivot_names
  = LPAREN __ head:ident_name tail:(__ COMMA __ ident_name)* __ RPAREN { return createList(head, tail) }
  / v:ident_name { return [v] }

// A label is a string or an unsigned integer literal, AS optional (GoogleSQL's opt_as_string_or_integer).
unpivot_column
  = c:unpivot_column_set __ a:((KW_AS __)? s:(literal_string / ![+-] i:literal_numeric { return i }) { return s })? {
    return { columns: c, as: a, ...getLocationObject() }
  }

unpivot_column_set
  = LPAREN __ head:column_ref tail:(__ COMMA __ column_ref)* __ RPAREN { return createList(head, tail) }
  / c:column_ref { return [c] }

pivot_aggregate_list
  = head:pivot_aliased_aggregate tail:(__ COMMA __ pivot_aliased_aggregate)* {
    return createList(head, tail)
  }

pivot_aliased_aggregate
  = e:(aggr_func / func_call) __ as:alias_clause? {
    return { expr: e, as }
  }

pivot_value_list
  = head:pivot_aliased_value tail:(__ COMMA __ pivot_aliased_value)* {
    return createList(head, tail)
  }

pivot_aliased_value
  = e:expr __ as:alias_clause? {
    return { expr: e, as }
  }

with_offset
  = KW_WITH __ KW_OFFSET __ alias:alias_clause? {
    return {
      keyword: 'with offset as',
      as: alias
    }
  }
table_to_list
  = head:table_to_item tail:(__ COMMA __ table_to_item)* {
      return createList(head, tail);
    }

table_to_item
  = head:table_name __ KW_TO __ tail: (table_name) {
      return [head, tail]
    }

table_ref_list
  = head:table_base
    tail:table_ref* {
      tail.unshift(head);
      tail.forEach(tableInfo => {
        const { table, as } = tableInfo
        tableAlias[table] = table
        if (as) tableAlias[as] = table
        refreshColumnList(columnList)
      })
      return tail;
    }

table_ref
  = __ COMMA __ t:table_base { return t; }
  / __ t:table_join { return t; }


table_join
  = op:join_op __ t:table_base __ KW_USING __ LPAREN __ head:ident_without_kw_type tail:(__ COMMA __ ident_without_kw_type)* __ RPAREN {
      t.join = op;
      t.using = createList(head, tail);
      return t;
    }
  / op:join_op __ t:table_base __ expr:on_clause? {
      t.join = op;
      t.on   = expr;
      return t;
    }
  // cannery: a set operator is not a join: `FROM t UNION ALL (SELECT ...)` is a set operation whose
  // second member is in parentheses (stock: a join of type UNION ALL).
  / op:join_op __ LPAREN __ stmt:union_stmt __ RPAREN __ alias:alias_clause? __ expr:on_clause? {
    stmt.parentheses = true;
    return {
      expr: stmt,
      as: alias,
      join: op,
      on: expr
    };
  }

hint
  = ([\@])([\{]) __ ident_name __ ([\=]) __ ident_name __ ([}])

tablesample
  = 'TABLESAMPLE'i __ ( 'BERNOULLI'i / 'RESERVOIR'i ) __ '(' __ number  __ ( 'PERCENT'i / 'ROWS'i ) __ ')'

//NOTE that, the table assigned to `var` shouldn't write in `table_join`
table_base
  = from_unnest_item / e:func_call __ alias:alias_clause? {
      return { type: 'expr', expr: e, as: alias };
  }
  / t:table_name
    ht:hint? __
	  ts:tablesample? __
	  alias:alias_clause? {
      if (t.type === 'var') {
        t.as = alias;
        return t;
      }
      // cannery: TABLESAMPLE and a hint are kept (stock parsed and dropped them, so every row was
      // read); the reader refuses them by name.
      return {
        ...t,
        as: alias,
        ...(ht ? { hint: ht } : {}),
        ...(ts ? { tablesample: ts } : {}),
        ...getLocationObject(),
      };
    }
  / LPAREN __ stmt:union_stmt __ RPAREN __ ts:tablesample? __ alias:alias_clause? {
      stmt.parentheses = true;
      return {
        expr: stmt,
        as: alias,
        ...(ts ? { tablesample: ts } : {}),
        ...getLocationObject(),
      };
    }
  // cannery: a parenthesised join, `(a CROSS JOIN UNNEST(a.m) AS m)`, as one from item whose
  // `from` is the list a FROM clause holds. BigQuery gives it no alias.
  / LPAREN __ l:table_ref_list __ RPAREN &{ return l.length > 1 } {
      return {
        type: 'parenthesized_join',
        from: l,
        ...getLocationObject(),
      };
    }

join_op
  = KW_LEFT __ KW_OUTER? __ KW_JOIN { return 'LEFT JOIN'; }
  / KW_RIGHT __ KW_OUTER? __ KW_JOIN { return 'RIGHT JOIN'; }
  / KW_FULL __ KW_OUTER? __ KW_JOIN { return 'FULL JOIN'; }
  / k:KW_CROSS __ KW_JOIN { return `${k[0].toUpperCase()} JOIN`; }
  / k:KW_INNER? __ KW_JOIN { return k ? `${k[0].toUpperCase()} JOIN` : 'JOIN'; }

table_name
  = db:ident_without_kw_type schema:(__ DOT __ ident_without_kw_type) tail:(__ DOT __ ident_without_kw_type) {
      const obj = { db: null, table: db.value };
      if (tail !== null) {
        obj.db = db.value;
        obj.catalog = db.value;
        obj.schema = schema[3].value;
        obj.table = tail[3].value;
        obj.surround = { table: getSurroundFromLiteralType(tail[3]), db: getSurroundFromLiteralType(db), schema: getSurroundFromLiteralType(schema[3]) };
      }
      return obj;
    }
  / dt:ident_without_kw_type tail:(__ DOT __ ident_without_kw_type)? {
      const obj = { db: null, table: dt.value, surround: { table: getSurroundFromLiteralType(dt) } };
      if (tail !== null) {
        obj.db = dt.value;
        obj.table = tail[3].value;
        obj.surround = { table: getSurroundFromLiteralType(tail[3]), db: getSurroundFromLiteralType(dt) };
      }
      return obj;
    }
or_and_expr
	= head:expr tail:(__ (KW_AND / KW_OR) __ expr)* {
    const len = tail.length
    let result = head
    for (let i = 0; i < len; ++i) {
      result = createBinaryExpr(tail[i][1], result, tail[i][3])
    }
    return result
  }

on_clause
  = KW_ON __ e:or_and_where_expr { return e; }

where_clause
  = KW_WHERE __ e:or_and_where_expr { return e; }

// cannery: ROLLUP, CUBE and GROUPING SETS are items of their own (stock read ROLLUP(a) and CUBE(a)
// as calls of functions of those names, and GROUPING SETS not at all): a `grouping_spec` node whose
// `items` are expressions (a parenthesised list is an `expr_list`), and, in GROUPING SETS, nested
// specs and the empty set `()` (an `expr_list` with no value).
group_by_clause
  = KW_GROUP __ KW_BY __ head:group_by_item tail:(__ COMMA __ group_by_item)* {
    return {
      columns: createList(head, tail)
    }
  }

// cannery: `GROUP BY ()`, the one group of every row (patch 29), an empty `expr_list`.
group_by_item
  = grouping_spec
  / LPAREN __ RPAREN { return { type: 'expr_list', value: [], parentheses: true } }
  / expr

grouping_spec
  = k:('ROLLUP'i / 'CUBE'i) !ident_start __ LPAREN __ head:expr tail:(__ COMMA __ expr)* __ RPAREN {
    return { type: 'grouping_spec', kind: k.toLowerCase(), items: createList(head, tail) }
  }
  / 'GROUPING'i !ident_start __ 'SETS'i !ident_start __ LPAREN __ head:grouping_set tail:(__ COMMA __ grouping_set)* __ RPAREN {
    return { type: 'grouping_spec', kind: 'grouping sets', items: createList(head, tail) }
  }

grouping_set
  = grouping_spec
  / LPAREN __ RPAREN { return { type: 'expr_list', value: [], parentheses: true } }
  / expr

having_clause
  = KW_HAVING __ e:or_and_where_expr { return e; }

qualify_clause
  = KW_QUALIFY __ e:expr { return e }

window_clause
  = KW_WINDOW __ l:named_window_expr_list {
    return {
      keyword: 'window',
      type: 'window',
      expr: l,
    }
  }

named_window_expr_list
  = head:named_window_expr tail:(__ COMMA __ named_window_expr)* {
      return createList(head, tail);
    }

named_window_expr
  = nw:ident_name __ KW_AS __ anw:as_window_specification {
    return {
      name: nw,
      as_window_specification: anw,
    }
  }

as_window_specification
  = n:ident_name { return n }
  / LPAREN __ ws:window_specification? __ RPAREN {
    return {
      window_specification: ws,
      parentheses: true
    }
  }

window_specification
  = n:ident? __
  bc:partition_by_clause? __
  l:order_by_clause? __
  w:window_frame_clause? {
    return {
      name: n,
      partitionby: bc,
      orderby: l,
      window_frame_clause: w
    }
  }

window_frame_clause
  = kw:KW_ROWS __ s:(window_frame_following / window_frame_preceding) {
    return {
      type: 'rows',
      expr: s
    }
  }
  / k:(KW_ROWS / 'RANGE'i) __ op:KW_BETWEEN __ p:window_frame_preceding __ KW_AND __ f:window_frame_following {
    const left = {
      type: 'origin',
      value: k.toLowerCase(),
    }
    const right = {
      type: 'expr_list',
      value: [p, f]
    }
    return createBinaryExpr(op, left, right)
  }

window_frame_following
  = s:window_frame_value __ c:('FOLLOWING'i / 'PRECEDING'i) {
    // => string
    s.value += ` ${c.toUpperCase()}`
    return s
  }
  / window_frame_current_row

window_frame_preceding
  = s:window_frame_value __ k:('PRECEDING'i / 'FOLLOWING'i)  {
    // => string
    s.value += ` ${k.toUpperCase()}`
    return s
  }
  / window_frame_current_row

window_frame_current_row
  = 'CURRENT'i __ 'ROW'i {
    return { type: 'origin', value: 'current row', ...getLocationObject() }
  }

window_frame_value
  = s:'UNBOUNDED'i {
    return { type: 'origin', value: s.toUpperCase(), ...getLocationObject() }
  }
  / literal_numeric

partition_by_clause
  = KW_PARTITION __ KW_BY __ bc:column_clause { return bc; }

order_by_clause
  = KW_ORDER __ KW_BY __ l:order_by_list { return l; }

order_by_list
  = head:order_by_element tail:(__ COMMA __ order_by_element)* {
      return createList(head, tail);
    }

order_by_element
  = e:expr __
    c:('COLLATE'i __ literal_string)? __
    d:(KW_DESC / KW_ASC)? __
    n:order_by_nulls? {
    const obj = { expr: e, type: d };
    if (n) obj.nulls = n;
    // cannery: COLLATE kept (stock: dropped), so a reader that does not know it refuses it.
    if (c) obj.collate = c[2];
    return obj;
  }

// cannery: NULLS FIRST | NULLS LAST, as node-sql-parser's postgresql grammar writes it (`nulls`).
order_by_nulls
  = 'NULLS'i __ p:('FIRST'i / 'LAST'i) !ident_start { return `NULLS ${p.toUpperCase()}`; }

number_or_param
  = literal_numeric
  / param

limit_clause
  = KW_LIMIT __ i1:(number_or_param) __ tail:((COMMA / KW_OFFSET) __ number_or_param)? {
      const res = [i1];
      if (tail) res.push(tail[2]);
      return {
        seperator: tail && tail[0] && tail[0].toLowerCase() || '',
        value: res,
        ...getLocationObject(),
      };
    }

/**
 * here only use `additive_expr` to support 'col1 = col1+2'
 * if you want to use lower operator, please use '()' like below
 * 'col1 = (col2 > 3)'
 */

expr_list
  = head:expr tail:(__ COMMA __ expr)* {
      const el = { type: 'expr_list' };
      el.value = createList(head, tail);
      return el;
    }

// cannery: STRUCT(...) is read as an operand (primary_term, before the calls), not first as a whole
// expression, so an operator after it applies (`STRUCT(1) IS DISTINCT FROM NULL`, `STRUCT(a) =
// STRUCT(b)`), where stock stopped after the STRUCT and failed at the operator.
_expr
  = json_expr
  / or_expr
  / unary_expr
  / array_expr

// cannery: an expression never starts with SELECT, so a query is not first read as one: the call
// rule took `select (...)` for a call of a function named SELECT, parsed its argument and failed
// after it, and the query was parsed again, twice per level of nested subquery (2^n).
expr
  = !KW_SELECT e:_expr { return e } / union_stmt

parentheses_list_expr
  = head:parentheses_expr tail:(__ COMMA __ parentheses_expr)* {
      return createList(head, tail);
    }

parentheses_expr
  = LPAREN __ c:column_clause __ RPAREN {
    return c
  }

array_expr
  = LBRAKE __ c:column_clause? __ RBRAKE {
    return {
      array_path: c,
      type: 'array',
      brackets: true,
      keyword: '',
    }
  }
  / s:(array_type / KW_ARRAY)? LBRAKE __ c:literal_list __ RBRAKE {
    return {
      definition: s,
      array_path: c.map(l => ({ expr: l, as: null })),
      type: 'array',
      keyword: s && 'array',
      brackets: true,
    }
  }
  / s:(array_type / KW_ARRAY)? __ l:(LBRAKE) __ c:(parentheses_list_expr / expr) __ r:(RBRAKE) {
    return {
      definition: s,
      expr_list: c,
      type: 'array',
      keyword: s && 'array',
      brackets: true,
      parentheses: false
    }
  }
  // cannery: a typed array of any expressions, or empty: ARRAY<INT64>[], ARRAY<STRING>['a', x].
  / s:(array_type / KW_ARRAY) __ LBRAKE __ c:column_clause? __ RBRAKE {
    return {
      definition: s,
      array_path: c || [],
      type: 'array',
      keyword: 'array',
      brackets: true,
    }
  }
  / s:(array_type / KW_ARRAY) __ l:(LPAREN) __ c:(parentheses_list_expr / expr) __ r:(RPAREN) {
    return {
      definition: s,
      expr_list: c,
      type: 'array',
      keyword: s && 'array',
      brackets: false,
      parentheses: true
    }
  }

json_expr
  // cannery: JSON '...' takes one string (stock: a list, which swallowed the arguments after it).
  = KW_JSON __ s:literal_string {
    return {
      type: 'json',
      keyword: 'json',
      expr_list: [s]
    }
  }

struct_expr
  // cannery: no ORDER BY / LIMIT after STRUCT(...): they belong to the aggregate around it
  // (ARRAY_AGG(STRUCT(a, b) ORDER BY c LIMIT 5)), see aggr_with_modifiers. Kept as null.
  = s:(struct_type / KW_STRUCT) __ LPAREN __ c:column_clause __ RPAREN {
    return {
      definition: s,
      expr_list: c,
      type: 'struct',
      keyword: s && 'struct',
      parentheses: true,
      order_by: null,
      limit: null
    }
  }

unary_expr
  = op: additive_operator tail: (__ primary)+ {
    return createUnaryExpr(op, tail[0][1]);
  }

// cannery: no || or && after a whole expression (`x IS NULL || y` read as (x IS NULL) || y, where
// BigQuery's || binds more tightly and refuses it); || between operands is the multiplicative level's.
binary_column_expr
  = head:expr tail:(__ (KW_AND / KW_OR) __ expr)* {
    const ast = head.ast
    if (ast && ast.type === 'select') {
      if (!(head.parentheses_symbol || head.parentheses || head.ast.parentheses || head.ast.parentheses_symbol) || ast.columns.length !== 1 || ast.columns[0].expr.column === '*') throw new Error('invalid column clause with select statement')
    }
    if (!tail || tail.length === 0) return head
    const len = tail.length
    let result = tail[len - 1][3]
    for (let i = len - 1; i >= 0; i--) {
      const left = i === 0 ? head : tail[i - 1][3]
      result = createBinaryExpr(tail[i][1], left, result)
    }
    return result
  }
or_and_where_expr
	= head:expr tail:(__ (KW_AND / KW_OR / COMMA) __ expr)* {
    const len = tail.length
    let result = head;
    let seperator = ''
    for (let i = 0; i < len; ++i) {
      if (tail[i][1] === ',') {
        seperator = ','
        if (!Array.isArray(result)) result = [result]
        result.push(tail[i][3])
      } else {
        result = createBinaryExpr(tail[i][1], result, tail[i][3]);
      }
    }
    if (seperator === ',') {
      const el = { type: 'expr_list' }
      el.value = result
      return el
    }
    return result
  }

or_expr
  = head:and_expr tail:(___ KW_OR __ and_expr)* {
      return createBinaryExprChain(head, tail);
    }

and_expr
  = head:not_expr tail:(___ KW_AND __ not_expr)* {
      return createBinaryExprChain(head, tail);
    }

//here we should use `NOT` instead of `comparision_expr` to support chain-expr
not_expr
  = comparison_expr
  / exists_expr
  / (KW_NOT / "!" !"=") __ expr:not_expr {
      return createUnaryExpr('NOT', expr);
    }

comparison_expr
  = left:bitwise_or_expr __ rh:comparison_op_right? {
      if (rh === null) return left;
      else if (rh.type === 'arithmetic') return createBinaryExprChain(left, rh.tail);
      else return createBinaryExpr(rh.op, left, rh.right);
    }
  / literal_string
  / column_ref

exists_expr
  = op:exists_op __ LPAREN __ stmt:union_stmt __ RPAREN {
    stmt.parentheses = true;
    return createUnaryExpr(op, stmt);
  }

exists_op
  = nk:(KW_NOT __ KW_EXISTS) { return nk[0] + ' ' + nk[2]; }
  / KW_EXISTS

comparison_op_right
  = arithmetic_op_right
  / in_op_right
  / between_op_right
  / is_op_right
  / like_op_right

arithmetic_op_right
  = l:(__ arithmetic_comparison_operator __ (bitwise_or_expr))+ {
      return { type: 'arithmetic', tail: l };
    }

arithmetic_comparison_operator
  = ">=" / ">" / "<=" / "<>" / "<" / "=" / "!="

is_op_right
  // cannery: IS [NOT] DISTINCT FROM, before IS [NOT] reads DISTINCT as its operand.
  = KW_IS __ n:(KW_NOT __)? KW_DISTINCT __ KW_FROM __ right:bitwise_or_expr {
      return { op: n ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM', right: right };
    }
  / KW_IS __ right:additive_expr {
      return { op: 'IS', right: right };
    }
  / (KW_IS __ KW_NOT) __ right:additive_expr {
      return { op: 'IS NOT', right: right };
  }

between_op_right
  = op:between_or_not_between_op __  begin:bitwise_or_expr __ KW_AND __ end:bitwise_or_expr {
      return {
        op: op,
        right: {
          type: 'expr_list',
          value: [begin, end]
        }
      };
    }

between_or_not_between_op
  = nk:(KW_NOT __ KW_BETWEEN) { return nk[0] + ' ' + nk[2]; }
  / KW_BETWEEN

like_op
  = nk:(KW_NOT __ KW_LIKE) { return nk[0] + ' ' + nk[2]; }
  / KW_LIKE

in_op
  = nk:(KW_NOT __ KW_IN) { return nk[0] + ' ' + nk[2]; }
  / KW_IN

// cannery: the pattern is an operand of the comparison, so `s LIKE 'a' || x` matches 'a' || x, as ||
// binds more tightly than LIKE (stock took the literal alone and left `|| x` to apply to the LIKE).
like_op_right
  // cannery: quantified LIKE, `x [NOT] LIKE ANY | SOME | ALL (p, ...)` or `... UNNEST(array)`: the
  // quantifier joins the operator (`NOT LIKE ANY`), the patterns an expr_list or an unnest node.
  = op:like_op __ q:like_quantifier __ LPAREN __ l:expr_list __ RPAREN {
      return { op: op + ' ' + q, right: l };
    }
  / op:like_op __ q:like_quantifier __ u:in_unnest {
      return { op: op + ' ' + q, right: u };
    }
  / op:like_op __ right:bitwise_or_expr {
      return { op: op, right: right };
    }

like_quantifier
  = "ANY"i !ident_start { return 'ANY'; }
  / "SOME"i !ident_start { return 'SOME'; }
  / KW_ALL

in_op_right
  = op:in_op __ LPAREN  __ l:expr_list __ RPAREN {
      return { op: op, right: l };
    }
  // cannery: IN UNNEST(array) takes no alias or WITH OFFSET (stock read FROM's UNNEST item here, so
  // `SELECT 1 IN UNNEST(a) AS x` gave the alias to the UNNEST and the select item none).
  / op:in_op __ e:(literal_string / in_unnest) {
      return { op: op, right: e };
    }

in_unnest
  = 'UNNEST'i __ LPAREN __ a:expr __ RPAREN {
    return { type: 'unnest', expr: a, parentheses: true, as: null, with_offset: null };
  }

// cannery: GoogleSQL's bitwise operators, each binding less tightly than the one after it and
// than + and -, more tightly than the comparisons: | then ^ then & then << and >>.
bitwise_or_expr
  = head:bitwise_xor_expr tail:(__ ("|" !"|" { return '|' }) __ bitwise_xor_expr)* {
      return createBinaryExprChain(head, tail);
    }

bitwise_xor_expr
  = head:bitwise_and_expr tail:(__ "^" __ bitwise_and_expr)* {
      return createBinaryExprChain(head, tail);
    }

bitwise_and_expr
  = head:shift_expr tail:(__ ("&" !"&" { return '&' }) __ shift_expr)* {
      return createBinaryExprChain(head, tail);
    }

shift_expr
  = head:additive_expr tail:(__ ("<<" / ">>") __ additive_expr)* {
      return createBinaryExprChain(head, tail);
    }

additive_expr
  = head:multiplicative_expr
    tail:(__ additive_operator  __ multiplicative_expr)* {
      if (tail && tail.length && head.type === 'column_ref' && head.column === '*') throw new Error(JSON.stringify({
        message: 'args could not be star column in additive expr',
        ...getLocationObject(),
      }))
      return createBinaryExprChain(head, tail);
    }

additive_operator
  = "+" / "-"

multiplicative_expr
  = head:unary_expr_or_primary
    tail:(__ (multiplicative_operator / LOGIC_OPERATOR)  __ unary_expr_or_primary)* {
      return createBinaryExprChain(head, tail)
    }

multiplicative_operator
  = "*" / "/" / "%"

// cannery: subscripts and field access after any primary, chained: a[OFFSET(0)].b[SAFE_OFFSET(1)],
// f(x)[ORDINAL(1)], (e)[0], @p[OFFSET(@i)]. Each `[...]+ (.field)*` run wraps what precedes it as
// node-sql-parser already writes `a[OFFSET(0)].b` in a select list: { type: 'column_ref', table:
// null, column: { expr, offset: [{ name?, value }], suffix?: '.b.c' } }, with any expression as
// index. A run of fields alone (`f(x).a`) has `offset: []`.
primary
  = p:primary_term s:subscript_run* {
      return s.reduce((expr, run) => {
        const column = { expr, offset: run.offset }
        if (run.suffix) column.suffix = run.suffix
        return { type: 'column_ref', table: null, column }
      }, p)
    }

subscript_run
  = o:(__ subscript)+ f:(__ DOT __ field_name)* {
      const run = { offset: o.map(item => item[1]) }
      if (f.length) run.suffix = f.map(item => `.${item[3]}`).join('')
      return run
    }
  / f:(__ DOT __ field_name)+ {
      return { offset: [], suffix: f.map(item => `.${item[3]}`).join('') }
    }

subscript
  = LBRAKE __ k:(KW_OFFSET / KW_ORDINAL / KW_SAFE_OFFSET / KW_SAFE_ORDINAL) __ LPAREN __ e:expr __ RPAREN __ RBRAKE {
      return { name: k, value: e }
    }
  / LBRAKE __ !((KW_OFFSET / KW_ORDINAL / KW_SAFE_OFFSET / KW_SAFE_ORDINAL) __ LPAREN) e:expr __ RBRAKE { return { value: e } }

field_name
  = column_name
  / v:backticks_quoted_ident { return v.value }

// cannery: CAST before the function calls. The generic call rule read `cast(` as a call, parsed
// the whole argument, failed at AS and left cast_expr to parse it again: twice per level of
// nesting, 2^n for n nested casts. No call named CAST can parse, so nothing else changes.
primary_term
  = array_expr
  / interval_expr
  / cast_expr
  // cannery: STRUCT(...) before the calls, which read `STRUCT(x)` as a call of a function STRUCT.
  / struct_expr
  / aggr_func
  / func_call
  / json_expr
  / literal
  / case_expr
  / column_ref
  / param
  / LPAREN __ list:or_and_where_expr __ RPAREN {
        list.parentheses = true;
        return list;
    }

unary_expr_or_primary
  = primary
  / op:(unary_operator) tail:(__ unary_expr_or_primary) {
    // if (op === '!') op = 'NOT'
    return createUnaryExpr(op, tail[1])
  }

unary_operator
  = '!' / '-' / '+' / '~'

interval_expr
  = KW_INTERVAL __
    e:expr __
    u: interval_unit
    // cannery: the range form, INTERVAL '10:20:30' HOUR TO SECOND: `unit` is 'hour to second', so a
    // reader that knows only single units refuses it rather than misreading it.
    t:(__ KW_TO __ interval_unit)? {
      return {
        type: 'interval',
        expr: e,
        unit: t ? `${u} to ${t[3]}`.toLowerCase() : u.toLowerCase(),
      }
    }

case_expr
  = KW_CASE __
    condition_list:case_when_then_list __
    otherwise:case_else? __
    KW_END __ KW_CASE? {
      if (otherwise) condition_list.push(otherwise);
      return {
        type: 'case',
        expr: null,
        args: condition_list
      };
    }
  / KW_CASE __
    expr:expr __
    condition_list:case_when_then_list __
    otherwise:case_else? __
    KW_END __ KW_CASE? {
      if (otherwise) condition_list.push(otherwise);
      return {
        type: 'case',
        expr: expr,
        args: condition_list
      };
    }

case_when_then_list
  = head:case_when_then __ tail:(__ case_when_then)* {
    return createList(head, tail, 1)
  }

case_when_then
  = KW_WHEN __ condition:or_and_where_expr __ KW_THEN __ result:expr {
    return {
      type: 'when',
      cond: condition,
      result: result
    };
  }

case_else = KW_ELSE __ result:expr {
    return { type: 'else', result: result };
  }

column_ref
  = tbl:column_without_kw col:(__ DOT __ column_without_kw)+ __ cof:(column_offset_expr_list __ (DOT __ column_without_kw)?)? ce:(__ collate_expr)? {
      const cols = col.map(c => c[3])
      columnList.add(`select::${tbl}::${cols[0]}`)
      const column = cof
      ? {
          column: {
            expr: {
              type: 'column_ref',
              table: null,
              column: cols[0],
              subFields: cols.slice(1)
            },
            offset: cof && cof[0],
            suffix: cof && cof[2] && `.${cof[2][2]}`,
          }
        }
      : { column: cols[0], subFields: cols.slice(1) }
      return {
        type: 'column_ref',
        table: tbl,
        ...column,
        collate: ce && ce[1],
        ...getLocationObject(),
      };
    }
  // cannery: backticks are BigQuery's only quoted identifiers; a quoted string here is a string.
  / col:(backticks_quoted_ident / bigquery_column) __ cf:array_index* ce:(__ collate_expr)? {
      const columnName = typeof col === 'string' ? col : col.value;
      columnList.add(`select::null::${columnName}`);
      const column = typeof col === 'string' ? { expr: { type: 'default', value: col }} : { expr: col }
      if (cf) column.offset = cf;
      return {
        type: 'column_ref',
        table: null,
        column,
        collate: ce && ce[1],
        ...getLocationObject()
      };
    }

column_list
  = head:column tail:(__ COMMA __ column)* {
      return createList(head, tail);
    }

ident_without_kw_type
  = n:ident_name {
    return { type: 'default', value: n }
  }
  / quoted_ident_type

ident_type
  = name:ident_name !{ return reservedMap[name.toUpperCase()] === true; } {
      return { type: 'default', value: name }
    }
  / quoted_ident_type

ident
  = name:ident_name !{ return reservedMap[`${name}`.toUpperCase()] === true; } {
      return name;
    }
  / name:quoted_ident {
      return name;
    }

alias_ident
  = name:column_name !{
      if (reservedMap[name.toUpperCase()] === true) throw new Error("Error: "+ JSON.stringify(name)+" is a reserved word, can not as alias clause");
      return false
    } {
      return name;
    }
  // cannery: a quoted alias is in backticks; `AS "x"` and `AS 'x'` are string literals in BigQuery.
  / name:backticks_quoted_ident {
      return name;
    }

quoted_ident_type
  = double_quoted_ident / single_quoted_ident / backticks_quoted_ident

quoted_ident
  = v:(double_quoted_ident / single_quoted_ident / backticks_quoted_ident) {
    return v.value
  }

double_quoted_ident
  = '"' chars:[^"]+ '"' {
    return {
      type: 'double_quote_string',
      value: chars.join('')
    }
  }

single_quoted_ident
  = "'" chars:[^']+ "'" {
    return {
      type: 'single_quote_string',
      value: chars.join('')
    }
  }

backticks_quoted_ident
  = "`" chars:[^`]+ "`" {
    return {
      type: 'backticks_quote_string',
      value: chars.join('')
    }
  }

column_without_kw
  = column_name / quoted_ident

ident_without_kw
  = ident_name / quoted_ident

column
  = name:column_name !{ return reservedMap[name.toUpperCase()] === true; } { return name; }
  / quoted_ident

// cannery: a column or alias name as BigQuery writes it, plain or in backticks.
bigquery_column
  = name:column_name !{ return reservedMap[name.toUpperCase()] === true; } { return name; }
  / v:backticks_quoted_ident { return v.value; }

column_name
  =  start:ident_start parts:column_part* { return start + parts.join(''); }

ident_name
  =  start:ident_start parts:ident_part* { return start + parts.join(''); }

ident_start = [A-Za-z_]

ident_part  = [A-Za-z0-9_-]

// to support column name like `cf1:name` in hbase
column_part  = [A-Za-z0-9_:\u4e00-\u9fa5\u00C0-\u017F]

// cannery: a parameter's name is a BigQuery identifier, so `@p-1` is @p minus 1 (stock's ident_name
// allows `-`, for project names, and read a parameter named "p-1").
param
  = s:(':'/'@') n:$(ident_start [A-Za-z0-9_]*) {
      return { type: 'param', value: n, prefix: s };
    }

aggr_func_list
  = head:aggr_func __ as:alias_clause? tail:(__ COMMA __ aggr_func __ alias_clause?)* {
      const el = { type: 'expr_list' };
      el.value = createList(head, tail);
      return el;
  }

aggr_func
  = aggr_fun_count
  / aggr_fun_smma
  / aggr_array_agg

consider_nulls_clause
  = v:('IGNORE'i / 'RESPECT'i) __ 'NULLS'i !ident_start { return `${v.toUpperCase()} NULLS` }

aggr_fun_smma
  = name:KW_SUM_MAX_MIN_AVG  __ LPAREN __ e:additive_expr __ RPAREN __ bc:over_partition? {
      return {
        type: 'aggr_func',
        name: name,
        args: {
          expr: e
        },
        over: bc,
        ...getLocationObject()
      };
    }

KW_SUM_MAX_MIN_AVG
  = KW_SUM / KW_MAX / KW_MIN / KW_AVG

on_update_current_timestamp
  = KW_ON __ 'UPDATE'i __ kw:KW_CURRENT_TIMESTAMP __ LPAREN __ l:expr_list? __ RPAREN{
    return {
      type: 'on update',
      keyword: kw,
      parentheses: true,
      expr: l
    }
  }
  / KW_ON __ 'UPDATE'i __ kw:KW_CURRENT_TIMESTAMP {
    return {
      type: 'on update',
      keyword: kw,
    }
  }

over_partition
  = KW_OVER __ aws:as_window_specification {
    return {
      type: 'window',
      as_window_specification: aws,
    }
  }
  / KW_OVER __ LPAREN __ bc:partition_by_clause __ l:order_by_clause? __ RPAREN {
    return {
      partitionby: bc,
      orderby: l
    }
  }
  / on_update_current_timestamp

aggr_fun_count
  = name:(KW_COUNT / 'string_agg'i) __ LPAREN __ arg:count_arg __ RPAREN __ bc:over_partition? {
      return {
        type: 'aggr_func',
        name: name,
        args: arg,
        over: bc,
        ...getLocationObject()
      };
    }

count_arg
  // cannery: COUNT(* HAVING MAX k).
  = e:star_expr h:(__ any_value_having)? {
    const arg = { expr: e, ...getLocationObject() }
    if (h) arg.having = h[1]
    return arg
  }
  / d:KW_DISTINCT? __ LPAREN __ c:expr __ RPAREN tail:(__ (KW_AND / KW_OR) __ expr)* __ or:order_by_clause? {
    const len = tail.length
    let result = c
    result.parentheses = true
    for (let i = 0; i < len; ++i) {
      result = createBinaryExpr(tail[i][1], result, tail[i][3])
    }
    return {
      distinct: d,
      expr: result,
      orderby: or,
      ...getLocationObject()
    };
  }
  / d:KW_DISTINCT? __ c:or_and_expr __ or:order_by_clause?  { return { distinct: d, expr: c, orderby: or, ...getLocationObject() }; }

aggr_array_agg
  // cannery: OVER after ARRAY_AGG(x), as after any aggregate (stock stopped before it, so the
  // analytic form was a syntax error; STRING_AGG(x) reaches aggr_fun_count first, which takes OVER).
  = pre:(ident __ DOT)? __ name:(KW_ARRAY_AGG / KW_STRING_AGG) __ LPAREN __ arg:expr __ RPAREN __ bc:over_partition? {
    // => { type: 'aggr_func'; args:count_arg; name: 'ARRAY_AGG' | 'STRING_AGG';  }
      return {
        type: 'aggr_func',
        name: pre ? `${pre[0]}.${name}` : name,
        args: arg,
        ...(bc ? { over: bc } : {}),
      };
    }

star_expr
  = "*" { return { type: 'star', value: '*' }; }

func_call
  = extract_func
  / any_value_func
  / name:scalar_func __ LPAREN __ l:expr_list? __ RPAREN __ bc:over_partition? {
      return {
        type: 'function',
        name: { name: [{ type: 'default', value: name }] },
        args: l ? l: { type: 'expr_list', value: [] },
        over: bc,
        ...getLocationObject(),
      };
    }
  / f:scalar_time_func __ up:on_update_current_timestamp? {
    return {
        type: 'function',
        name: { name: [{ type: 'origin', value: f }] },
        over: up,
        ...getLocationObject(),
    }
  }
  // cannery: a call may carry BigQuery's aggregate modifiers, which the aggr_func rules refuse:
  // name([DISTINCT] expr [, delimiter] [IGNORE|RESPECT NULLS] [HAVING MAX|MIN k] [ORDER BY ...]
  // [LIMIT n]) [OVER ...].
  // With one, it is an aggr_func whose args have count_arg's shape (distinct, expr, orderby); with
  // a clause that shape cannot hold, `separator` (STRING_AGG's delimiter, as node-sql-parser's
  // postgresql grammar writes it), `consider_nulls` or `limit`, it is an `aggr_func_clauses` with
  // them in args, so a reader that knows only aggr_func refuses it instead of dropping them.
  // Without a modifier, the stock function node. One rule for all three, so a call's arguments
  // are parsed once (a rule tried first and failing would parse them again, at every level).
  / name:proc_func_name __ LPAREN __
    d:KW_DISTINCT? __
    l:call_arguments? __
    cn:consider_nulls_clause? __
    hv:any_value_having? __
    o:order_by_clause? __
    lim:limit_clause? __
    RPAREN __ bc:over_partition?
    &{ return !(d || cn || hv || o || lim) || aggregateArguments(name, l) !== null } {
    if (d || cn || hv || o || lim) {
      const args = { distinct: d, ...aggregateArguments(name, l), orderby: o }
      if (cn) args.consider_nulls = cn
      // cannery: HAVING MAX | MIN (patch 26), which only an `aggr_func_clauses` reader knows.
      if (hv) args.having = hv
      if (lim) args.limit = lim
      return {
        type: args.separator || cn || hv || lim ? 'aggr_func_clauses' : 'aggr_func',
        name: dottedName(name),
        args,
        over: bc,
        ...getLocationObject()
      };
    }
    if (l && l.type !== 'expr_list') l = { type: 'expr_list', value: [l] }
      return {
        type: 'function',
        name: name,
        args: l ? l: { type: 'expr_list', value: [] },
        over: bc,
        ...getLocationObject(),
      };
    }
  // cannery: CURRENT_DATETIME without parentheses is BigQuery's function too, written like a bare
  // CURRENT_TIMESTAMP above (with parentheses it is an ordinary call, as before).
  / f:KW_CURRENT_DATETIME {
    return {
        type: 'function',
        name: { name: [{ type: 'origin', value: f }] },
        over: null,
        ...getLocationObject(),
    }
  }

// cannery: a call's arguments, positional ones then named ones (`name => value`): one
// expression, or an `expr_list` of them (stock: or_and_where_expr, which has no named arguments).
call_arguments
  = head:call_argument tail:(__ COMMA __ call_argument)* {
      if (tail.length === 0) return head
      return { type: 'expr_list', value: [head, ...tail.map(t => t[3])] }
    }

// An argument as or_and_where_expr reads one between commas (AND and OR chained left to right).
call_argument
  = named_argument
  / head:expr tail:(__ (KW_AND / KW_OR) __ expr)* {
      let result = head
      for (const item of tail) result = createBinaryExpr(item[1], result, item[3])
      return result
    }

named_argument
  = name:ident_name __ "=>" __ value:expr {
      return { type: 'named_argument', name: name, value: value, ...getLocationObject() }
    }

proc_func_name
  // cannery: FROM is never a function's name (patch 35): `SELECT a, FROM (SELECT ...)`, BigQuery's
  // trailing comma before FROM, read FROM (...) as a call.
  = !KW_FROM dt:ident_without_kw_type tail:(__ DOT __ ident_without_kw_type)* {
      const result = { name: [dt] }
      if (tail !== null) {
        result.schema = dt
        result.name = tail.map(t => t[3])
      }
      return result
    }

scalar_time_func
  = KW_CURRENT_DATE
  / KW_CURRENT_TIME
  / KW_CURRENT_TIMESTAMP
scalar_func
  = scalar_time_func / KW_SESSION_USER

any_value_having
  = KW_HAVING __ i:(KW_MAX / KW_MIN) __ e:or_and_where_expr {
    return {
      prefix: i,
      expr: e
    }
  }

any_value_func
  = 'ANY_VALUE'i __ LPAREN __ e:or_and_where_expr __ h:any_value_having? __ RPAREN __ bc:over_partition? {
    return {
        type: 'any_value',
        args: {
          expr: e,
          having: h
        },
        over: bc,
        ...getLocationObject(),
    }
  }

// cannery: EXTRACT's part may also be one of BigQuery's MICROSECOND, MILLISECOND, DAYOFYEAR,
// DATETIME or WEEK(<weekday>) (as written, without spaces: 'week(monday)'). Not in extract_filed,
// which DATE_TRUNC shares: DATE_TRUNC(d, WEEK(MONDAY)) stays the function call it was.
extract_part
  = w:'WEEK'i __ LPAREN __ d:ident_name __ RPAREN { return `${w}(${d})` }
  / $(('MICROSECOND'i / 'MILLISECOND'i / 'DAYOFYEAR'i / 'DATETIME'i) !ident_start)
  / extract_filed

extract_filed
  = f:(
    'YEAR_MONTH'i / 'DAY_HOUR'i / 'DAY_MINUTE'i / 'DAY_SECOND'i / 'DAY_MICROSECOND'i / 'HOUR_MINUTE'i / 'HOUR_SECOND'i/ 'HOUR_MICROSECOND'i / 'MINUTE_SECOND'i / 'MINUTE_MICROSECOND'i / 'SECOND_MICROSECOND'i / 'TIMEZONE_HOUR'i / 'TIMEZONE_MINUTE'i
    / 'CENTURY'i / 'DAYOFWEEK'i / 'DAY'i / 'DATE'i / 'DECADE'i / 'DOW'i / 'DOY'i / 'EPOCH'i / 'HOUR'i / 'ISODOW'i / 'ISOWEEK'i / 'ISOYEAR'i / 'MICROSECONDS'i / 'MILLENNIUM'i / 'MILLISECONDS'i / 'MINUTE'i / 'MONTH'i / 'QUARTER'i / 'SECOND'i / 'TIME'i / 'TIMEZONE'i / 'WEEK'i / 'YEAR'i
  ) {
    return f
  }
// cannery: the first form is a typed literal alone (`EXTRACT(DAY FROM DATE '2024-01-02')`); stock took
// any expression after the type word, so `FROM DATE(ts, 'UTC')` was CAST((ts, 'UTC') AS DATE) and
// `FROM TIMESTAMP '...' + INTERVAL 1 HOUR` a CAST of the sum. Those are the second form's now.
extract_func
  = kw:KW_EXTRACT __ LPAREN __ f:extract_part __ KW_FROM __ t:(KW_TIMESTAMP / KW_INTERVAL / KW_TIME / KW_DATE) __ s:literal_string __ RPAREN {
    return {
        type: kw.toLowerCase(),
        args: {
          field: f,
          cast_type: t,
          source: s,
        },
        ...getLocationObject(),
    }
  }
  // cannery: EXTRACT(part FROM ts AT TIME ZONE 'tz'): the source is { type: 'at_time_zone', expr,
  // time_zone }, so a reader that knows no time zone refuses it instead of extracting in UTC.
  / kw:KW_EXTRACT __ LPAREN __ f:extract_part __ KW_FROM __ s:expr tz:(__ 'AT'i __ 'TIME'i __ 'ZONE'i __ expr)? __ RPAREN {
    return {
        type: kw.toLowerCase(),
        args: {
          field: f,
          source: tz ? { type: 'at_time_zone', expr: s, time_zone: tz[7] } : s,
        },
        ...getLocationObject(),
    }
  }
  / 'DATE_TRUNC'i __  LPAREN __ e:expr __ COMMA __ f:extract_filed __ RPAREN {
    return {
        type: 'function',
        name: { name: [{ type: 'origin', value: 'date_trunc' }]},
        args: { type: 'expr_list', value: [e, { type: 'origin', value: f }] },
        over: null,
        ...getLocationObject(),
      };
  }

cast_expr_arg
  // cannery: `CAST(a[OFFSET(0)] AS ...)`: the subscript is now part of `expr` (see primary); the
  // stock rule put it on the cast node as `offset`, where readers of the cast dropped it.
  = n:expr {
    return { expr: n }
  }

cast_keyword
  = KW_CAST / KW_SAFE_CAST
cast_expr
  = c:cast_keyword __ LPAREN __ e:cast_expr_arg __ KW_AS __ t:data_type __ f:cast_format? __ RPAREN {
    return {
      type: f ? 'cast_format' : 'cast',
      keyword: c.toLowerCase(),
      ...e,
      symbol: 'as',
      target: [t],
      ...f
    };
  }
  / c:cast_keyword __ LPAREN __ e:cast_expr_arg __ KW_AS __ KW_DECIMAL __ LPAREN __ precision:int __ RPAREN __ RPAREN {
    return {
      type: 'cast',
      keyword: c.toLowerCase(),
      ...e,
      symbol: 'as',
      target: [{
        dataType: 'DECIMAL(' + precision + ')'
      }]
    };
  }
  / c:cast_keyword __ LPAREN __ e:cast_expr_arg __ KW_AS __ KW_DECIMAL __ LPAREN __ precision:int __ COMMA __ scale:int __ RPAREN __ RPAREN {
      return {
        type: 'cast',
        keyword: c.toLowerCase(),
        ...e,
        symbol: 'as',
        target: [{
          dataType: 'DECIMAL(' + precision + ', ' + scale + ')'
        }]
      };
    }
  / c:cast_keyword __ LPAREN __ e:cast_expr_arg __ KW_AS __ s:signedness __ t:KW_INTEGER? __ RPAREN { /* MySQL cast to un-/signed integer */
    return {
      type: 'cast',
      keyword: c.toLowerCase(),
      ...e,
      symbol: 'as',
      target: [{
        dataType: s + (t ? ' ' + t: '')
      }]
    };
  }

// cannery: CAST(x AS STRING FORMAT 'YYYY-MM-DD' [AT TIME ZONE 'tz']): a `cast_format` node, a cast
// node with `format` and, when written, `time_zone` (a reader of casts would drop them).
cast_format
  = 'FORMAT'i !ident_start __ f:expr tz:(__ 'AT'i __ 'TIME'i __ 'ZONE'i __ expr)? {
      return tz ? { format: f, time_zone: tz[7] } : { format: f }
    }

signedness
  = KW_SIGNED
  / KW_UNSIGNED

literal
  = literal_bytes
  / literal_string
  / literal_numeric
  / literal_bool
  / literal_null
  / literal_datetime

literal_list
  = head:literal tail:(__ COMMA __ literal)* {
      return createList(head, tail);
    }

literal_null
  = KW_NULL {
      return { type: 'null', value: null };
    }

literal_not_null
  = KW_NOT_NULL {
    return {
      type: 'not null',
      value: 'not null',
    }
  }

literal_bool
  = KW_TRUE {
      return { type: 'bool', value: true };
    }
  / KW_FALSE {
      return { type: 'bool', value: false };
    }

// cannery: BigQuery's quoted forms. '...', "...", '''...''' and """...""", each with an optional r/R
// prefix that touches the quote. `value` is the text between the quotes with its escapes undecoded
// (the generator decodes them and refuses those BigQuery refuses); the type says single-quoted,
// double-quoted or raw as before. No `''` escape: two literals with nothing between them are an error.
literal_string
  = r:'R'i? q:quoted_text {
      return {
        type: r ? 'regex_string' : q.type,
        value: q.value,
        ...getLocationObject()
      };
    }

// cannery: BigQuery's bytes literals, b'...' / B"..." / b'''...''' and their raw forms (rb, br, any case).
literal_bytes
  = p:$('B'i 'R'i? / 'R'i 'B'i) q:quoted_text {
      return {
        type: p.length === 2 ? 'raw_bytes_string' : 'bytes_string',
        value: q.value,
        ...getLocationObject()
      };
    }

quoted_text
  = "'''" v:$(quoted_escape / !"'''" .)* "'''" !['"] { return { type: 'single_quote_string', value: v } }
  / '"""' v:$(quoted_escape / !'"""' .)* '"""' !['"] { return { type: 'string', value: v } }
  / "'" v:$(quoted_escape / [^'\\\n\r])* "'" !['"] { return { type: 'single_quote_string', value: v } }
  / '"' v:$(quoted_escape / [^"\\\n\r])* '"' !['"] { return { type: 'string', value: v } }

quoted_escape
  = "\\" [^\n\r]

literal_datetime
  // cannery: the literal's text as written, like a string literal's (see literal_string).
  = type:(KW_TIME / KW_DATE / KW_TIMESTAMP / KW_DATETIME) __ q:quoted_text {
      return {
        type: type.toLowerCase(),
        value: q.value
      };
    }
  // cannery: NUMERIC '1.5' and BIGNUMERIC '1.5' (BIGDECIMAL an alias), their text as written.
  / KW_NUMERIC __ q:quoted_text {
      return { type: 'numeric', value: q.value };
    }
  / (KW_BIGNUMERIC / KW_BIGDECIMAL) __ q:quoted_text {
      return { type: 'bignumeric', value: q.value };
    }
  // cannery: RANGE<DATE> '[2020-01-01, UNBOUNDED)', its element type and its text as written.
  / t:range_type __ q:quoted_text {
      return { type: 'range_literal', element: t.definition[0].field_type.dataType, value: q.value };
    }

line_terminator
  = [\n\r]

literal_numeric
  = hex_integer
  // cannery: a number runs into no name (`1a`, `0x1G`): BigQuery wants whitespace before an alias.
  / n:number !ident_start {
      if (n && n.type === 'bigint') return n
      return { type: 'number', value: n };
    }

number
  = int_:int frac:frac exp:exp {
    const numStr = int_ + frac + exp
    return {
      type: 'bigint',
      value: numStr
    }
  }
  / int_:int frac:frac {
    const numStr = int_ + frac
    if (isBigInt(int_)) return {
      type: 'bigint',
      value: numStr
    }
    // cannery: the text as written, not the double's toFixed: that wrote -0.0 as 0.0 and
    // 0.12345678901234567890 as 0.12345678901234567737, where a cast to NUMERIC reads the text.
    return numStr.replace(/^\+/, '');
  }
  / int_:int exp:exp {
    const numStr = int_ + exp
    return {
      type: 'bigint',
      value: numStr
    }
  }
  / int_:int {
    if (isBigInt(int_)) return {
      type: 'bigint',
      value: int_
    }
    return parseFloat(int_);
  }

// cannery: BigQuery's hexadecimal INT64 literals (0x1F, -0X7fff...): the same node as the decimal
// literal of that value, `number` or, past 2^53, `bigint` with the exact decimal text.
hex_integer
  = s:[+-]? "0" [xX] h:$hexDigit+ ![A-Za-z0-9_] {
      const magnitude = BigInt('0x' + h)
      const value = s === '-' ? -magnitude : magnitude
      if (isBigInt(magnitude.toString())) return { type: 'bigint', value: value.toString() }
      return { type: 'number', value: Number(value) }
    }

int
  = digits
  / digit:digit
  / op:("-" / "+" ) digits:digits { return op + digits; }
  / op:("-" / "+" ) digit:digit { return op + digit; }

frac
  = "." digits:digits { return "." + digits; }

exp
  = e:e digits:digits { return e + digits; }

digits
  = digits:digit+ { return digits.join(""); }

digit   = [0-9]

hexDigit
  = [0-9a-fA-F]

e
  = e:[eE] sign:[+-]? { return e + (sign !== null ? sign: ''); }


KW_NULL     = "NULL"i       !ident_start
KW_DEFAULT  = "DEFAULT"i    !ident_start
KW_NOT_NULL = "NOT NULL"i   !ident_start
KW_TRUE     = "TRUE"i       !ident_start
KW_TO       = "TO"i         !ident_start
KW_FALSE    = "FALSE"i      !ident_start

KW_DROP     = "DROP"i       !ident_start { return 'DROP'; }
KW_USE      = "USE"i        !ident_start
KW_SELECT   = "SELECT"i     !ident_start
KW_RECURSIVE= "RECURSIVE"i   !ident_start
KW_IGNORE   = "IGNORE"i     !ident_start
KW_EXPLAIN  = "EXPLAIN"i    !ident_start
KW_PARTITION = "PARTITION"i !ident_start { return 'PARTITION' }

KW_INTO     = "INTO"i       !ident_start
KW_FROM     = "FROM"i       !ident_start
KW_SET      = "SET"i        !ident_start { return 'SET' }
KW_UNLOCK   = "UNLOCK"i     !ident_start
KW_LOCK     = "LOCK"i       !ident_start

KW_AS       = "AS"i         !ident_start
KW_TABLE    = "TABLE"i      !ident_start { return 'TABLE'; }
KW_TABLES   = "TABLES"i      !ident_start { return 'TABLES'; }
KW_COLLATE  = "COLLATE"i    !ident_start { return 'COLLATE'; }

KW_ON       = "ON"i       !ident_start
KW_LEFT     = "LEFT"i     !ident_start
KW_RIGHT    = "RIGHT"i    !ident_start
KW_FULL     = "FULL"i     !ident_start
KW_INNER    = "INNER"i    !ident_start
KW_CROSS    = "CROSS"i    !ident_start
KW_JOIN     = "JOIN"i     !ident_start
KW_OUTER    = "OUTER"i    !ident_start
KW_OVER     = "OVER"i     !ident_start
KW_UNION    = "UNION"i    !ident_start
KW_INTERSECT    = "INTERSECT"i    !ident_start
KW_EXCEPT    = "EXCEPT"i    !ident_start

KW_VALUE    = "VALUE"i    !ident_start { return 'VALUE' }
KW_VALUES   = "VALUES"i   !ident_start
KW_USING    = "USING"i    !ident_start

KW_WHERE    = "WHERE"i      !ident_start
KW_WITH     = "WITH"i       !ident_start

KW_GROUP    = "GROUP"i      !ident_start
KW_BY       = "BY"i         !ident_start
KW_ORDER    = "ORDER"i      !ident_start
KW_HAVING   = "HAVING"i     !ident_start
KW_QUALIFY  = "QUALIFY"i     !ident_start
KW_WINDOW   = "WINDOW"i  !ident_start
KW_ORDINAL  = "ORDINAL"i !ident_start { return 'ORDINAL' }
KW_SAFE_ORDINAL  = "SAFE_ORDINAL"i !ident_start { return 'SAFE_ORDINAL' }

KW_LIMIT    = "LIMIT"i      !ident_start
KW_OFFSET   = "OFFSET"i     !ident_start { return 'OFFSET'; }
KW_SAFE_OFFSET   = "SAFE_OFFSET"i     !ident_start { return 'SAFE_OFFSET'; }

KW_ASC      = "ASC"i        !ident_start { return 'ASC'; }
KW_DESC     = "DESC"i       !ident_start { return 'DESC'; }

KW_ALL      = "ALL"i        !ident_start { return 'ALL'; }
KW_DISTINCT = "DISTINCT"i   !ident_start { return 'DISTINCT';}

KW_BETWEEN  = "BETWEEN"i    !ident_start { return 'BETWEEN'; }
KW_IN       = "IN"i         !ident_start { return 'IN'; }
KW_IS       = "IS"i         !ident_start { return 'IS'; }
KW_LIKE     = "LIKE"i       !ident_start { return 'LIKE'; }
KW_EXISTS   = "EXISTS"i     !ident_start { return 'EXISTS'; }

KW_NOT      = "NOT"i        !ident_start { return 'NOT'; }
KW_AND      = "AND"i        !ident_start { return 'AND'; }
KW_OR       = "OR"i         !ident_start { return 'OR'; }

KW_COUNT    = "COUNT"i      !ident_start { return 'COUNT'; }
KW_MAX      = "MAX"i        !ident_start { return 'MAX'; }
KW_MIN      = "MIN"i        !ident_start { return 'MIN'; }
KW_SUM      = "SUM"i        !ident_start { return 'SUM'; }
KW_AVG      = "AVG"i        !ident_start { return 'AVG'; }

KW_EXTRACT  = "EXTRACT"i    !ident_start { return 'EXTRACT'; }
KW_CALL     = "CALL"i       !ident_start { return 'CALL'; }

KW_CASE     = "CASE"i       !ident_start
KW_WHEN     = "WHEN"i       !ident_start
KW_THEN     = "THEN"i       !ident_start
KW_ELSE     = "ELSE"i       !ident_start
KW_END      = "END"i        !ident_start

KW_CAST     = "CAST"i       !ident_start { return 'CAST' }
KW_SAFE_CAST     = "SAFE_CAST"i   !ident_start { return 'SAFE_CAST' }

KW_ARRAY     = "ARRAY"i     !ident_start { return 'ARRAY'; }
KW_ARRAY_AGG = "ARRAY_AGG"i !ident_start { return 'ARRAY_AGG'; }
KW_STRING_AGG = "STRING_AGG"i !ident_start { return 'STRING_AGG'; }
KW_BYTES     = "BYTES"i     !ident_start { return 'BYTES'; }
KW_BOOL     = "BOOL"i     !ident_start { return 'BOOL'; }
KW_CHAR     = "CHAR"i     !ident_start { return 'CHAR'; }
KW_GEOGRAPHY = "GEOGRAPHY"i     !ident_start { return 'GEOGRAPHY'; }
KW_VARCHAR  = "VARCHAR"i  !ident_start { return 'VARCHAR';}
KW_NUMERIC  = "NUMERIC"i  !ident_start { return 'NUMERIC'; }
KW_DECIMAL  = "DECIMAL"i  !ident_start { return 'DECIMAL'; }
KW_SIGNED   = "SIGNED"i   !ident_start { return 'SIGNED'; }
KW_UNSIGNED = "UNSIGNED"i !ident_start { return 'UNSIGNED'; }
KW_INT_64     = "INT64"i      !ident_start { return 'INT64'; }
KW_ZEROFILL = "ZEROFILL"i !ident_start { return 'ZEROFILL'; }
KW_INTEGER  = "INTEGER"i  !ident_start { return 'INTEGER'; }
KW_JSON     = "JSON"i     !ident_start { return 'JSON'; }
KW_SMALLINT = "SMALLINT"i !ident_start { return 'SMALLINT'; }
KW_STRING = "STRING"i !ident_start { return 'STRING'; }
KW_STRUCT = "STRUCT"i !ident_start { return 'STRUCT'; }
KW_TINYINT  = "TINYINT"i  !ident_start { return 'TINYINT'; }
KW_TINYTEXT = "TINYTEXT"i !ident_start { return 'TINYTEXT'; }
KW_TEXT     = "TEXT"i     !ident_start { return 'TEXT'; }
KW_MEDIUMTEXT = "MEDIUMTEXT"i  !ident_start { return 'MEDIUMTEXT'; }
KW_LONGTEXT  = "LONGTEXT"i  !ident_start { return 'LONGTEXT'; }
KW_BIGINT   = "BIGINT"i   !ident_start { return 'BIGINT'; }
KW_INT      = "INT"i      !ident_start { return 'INT'; }
KW_BYTEINT  = "BYTEINT"i  !ident_start { return 'BYTEINT'; }
KW_BOOLEAN  = "BOOLEAN"i  !ident_start { return 'BOOLEAN'; }
KW_BIGNUMERIC = "BIGNUMERIC"i !ident_start { return 'BIGNUMERIC'; }
KW_BIGDECIMAL = "BIGDECIMAL"i !ident_start { return 'BIGDECIMAL'; }
KW_FLOAT_64   = "FLOAT64"i   !ident_start { return 'FLOAT64'; }
KW_DOUBLE   = "DOUBLE"i   !ident_start { return 'DOUBLE'; }
KW_DATE     = "DATE"i     !ident_start { return 'DATE'; }
KW_DATETIME = "DATETIME"i     !ident_start { return 'DATETIME'; }
KW_ROWS     = "ROWS"i     !ident_start { return 'ROWS'; }
KW_TIME     = "TIME"i     !ident_start { return 'TIME'; }
KW_TIMESTAMP= "TIMESTAMP"i!ident_start { return 'TIMESTAMP'; }
KW_TRUNCATE = "TRUNCATE"i !ident_start { return 'TRUNCATE'; }
KW_USER     = "USER"i     !ident_start { return 'USER'; }

KW_CURRENT_DATE     = "CURRENT_DATE"i !ident_start { return 'CURRENT_DATE'; }
KW_CURRENT_DATETIME = "CURRENT_DATETIME"i !ident_start { return 'CURRENT_DATETIME'; }
KW_ADD_DATE         = "ADDDATE"i !ident_start { return 'ADDDATE'; }
KW_INTERVAL         = "INTERVAL"i !ident_start { return 'INTERVAL'; }
KW_UNIT_YEAR        = "YEAR"i !ident_start { return 'YEAR'; }
KW_UNIT_ISOYEAR     = "ISOYEAR"i !ident_start { return 'ISOYEAR'; }
KW_UNIT_MONTH       = "MONTH"i !ident_start { return 'MONTH'; }
KW_UNIT_DAY         = "DAY"i !ident_start { return 'DAY'; }
KW_UNIT_HOUR        = "HOUR"i !ident_start { return 'HOUR'; }
KW_UNIT_MINUTE      = "MINUTE"i !ident_start { return 'MINUTE'; }
KW_UNIT_SECOND      = "SECOND"i !ident_start { return 'SECOND'; }
KW_UNIT_WEEK        = "WEEK"i !ident_start { return 'WEEK'; }
KW_UNIT_QUARTER     = "QUARTER"i !ident_start { return 'QUARTER'; }
KW_UNIT_MILLISECOND = "MILLISECOND"i !ident_start { return 'MILLISECOND'; }
KW_UNIT_MICROSECOND = "MICROSECOND"i !ident_start { return 'MICROSECOND'; }
KW_CURRENT_TIME     = "CURRENT_TIME"i !ident_start { return 'CURRENT_TIME'; }
KW_CURRENT_TIMESTAMP= "CURRENT_TIMESTAMP"i !ident_start { return 'CURRENT_TIMESTAMP'; }
KW_SESSION_USER     = "SESSION_USER"i !ident_start { return 'SESSION_USER'; }

KW_GLOBAL         = "GLOBAL"i    !ident_start { return 'GLOBAL'; }
KW_SESSION        = "SESSION"i   !ident_start { return 'SESSION'; }
KW_LOCAL          = "LOCAL"i     !ident_start { return 'LOCAL'; }
KW_PIVOT          = "PIVOT"i   !ident_start { return 'PIVOT'; }
KW_PERSIST        = "PERSIST"i   !ident_start { return 'PERSIST'; }
KW_PERSIST_ONLY   = "PERSIST_ONLY"i   !ident_start { return 'PERSIST_ONLY'; }
KW_VIEW           = "VIEW"i    !ident_start { return 'VIEW'; }

// MySQL Alter
KW_ADD     = "ADD"i     !ident_start { return 'ADD'; }
KW_COLUMN  = "COLUMN"i  !ident_start { return 'COLUMN'; }
KW_INDEX   = "INDEX"i  !ident_start { return 'INDEX'; }
KW_KEY     = "KEY"i  !ident_start { return 'KEY'; }
KW_FULLTEXT = "FULLTEXT"i  !ident_start { return 'FULLTEXT'; }
KW_UNIQUE     = "UNIQUE"i  !ident_start { return 'UNIQUE'; }
KW_COMMENT     = "COMMENT"i  !ident_start { return 'COMMENT'; }
KW_CONSTRAINT  = "CONSTRAINT"i  !ident_start { return 'CONSTRAINT'; }
KW_REFERENCES  = "REFERENCES"i  !ident_start { return 'REFERENCES'; }

//special character
DOT       = '.'
COMMA     = ','
STAR      = '*'
LPAREN    = '('
RPAREN    = ')'
LANGLE    = '<'
RANGLE    = '>'
LBRAKE    = '['
RBRAKE    = ']'

SEMICOLON = ';'

OPERATOR_CONCATENATION = '||'
OPERATOR_AND = '&&'
LOGIC_OPERATOR = OPERATOR_CONCATENATION / OPERATOR_AND

// separator
__
  = (whitespace / comment)*

___
  = (whitespace / comment)+

comment
  = block_comment
  / line_comment
  / pound_sign_comment

block_comment
  = "/*" (!"*/" char)* "*/"

line_comment
  = "--" (!EOL char)*

pound_sign_comment
  = "#" (!EOL char)*

char = .

// cannery: BigQuery's INTERVAL parts QUARTER, MILLISECOND and MICROSECOND added.
interval_unit
  = KW_UNIT_YEAR
  / KW_UNIT_ISOYEAR
  / KW_UNIT_QUARTER
  / KW_UNIT_MILLISECOND
  / KW_UNIT_MICROSECOND
  / KW_UNIT_MONTH
  / KW_UNIT_DAY
  / KW_UNIT_HOUR
  / KW_UNIT_MINUTE
  / KW_UNIT_SECOND
  / KW_UNIT_WEEK

whitespace =
  [ \t\n\r]

EOL
  = EOF
  / [\n\r]+

EOF = !.

data_type_list
  = head:data_type_alias tail:(__ COMMA __ data_type_alias)* {
      return createList(head, tail);
    }

data_type_alias
  // cannery: a name followed by `<` is a type's (RANGE<DATE>), never a field's.
  = n:(n:ident_name !{ return DATA_TYPES[n.toUpperCase()] === true; } !(__ LANGLE) {
      return n
    })? __ t:data_type {
    return {
      field_name: n,
      field_type: t,
    }
  }

data_type
  = struct_type
  / range_type
  / array_type
  / character_string_type
  / numeric_type
  / datetime_type
  / bool_byte_geography_type

character_string_type
  // cannery: STRING(n) read its length from the wrong place and threw a TypeError.
  = t:KW_STRING s:(__ LPAREN __ [0-9]+ __ RPAREN)? {
    const result = { dataType: t }
    if (!s) return result
    return { ...result, length: parseInt(s[3].join(''), 10), parentheses: true  };
  }

// cannery: BigQuery's names for its numeric types, aliases included (INT, BIGINT, BYTEINT, ...):
// `dataType` is the name as written, upper-cased; mapping an alias to its type is the reader's.
// NUMERIC and BIGNUMERIC take (precision[, scale]) as `length` and `scale`; DECIMAL(p[, s]) keeps
// the stock cast form ('DECIMAL(p, s)').
numeric_type
  = t:(KW_NUMERIC / KW_BIGNUMERIC / KW_BIGDECIMAL) __ LPAREN __ p:int s:(__ COMMA __ int)? __ RPAREN {
      const result = { dataType: t, length: parseInt(p, 10), parentheses: true }
      if (s) result.scale = parseInt(s[3], 10)
      return result
    }
  / t:(KW_NUMERIC / KW_BIGNUMERIC / KW_BIGDECIMAL / KW_DECIMAL / KW_INT_64 / KW_FLOAT_64 / KW_INTEGER
    / KW_INT / KW_SMALLINT / KW_BIGINT / KW_TINYINT / KW_BYTEINT) { return { dataType: t }; }

datetime_type
  = t:(KW_DATE / KW_DATETIME / KW_TIME / KW_TIMESTAMP) __ LPAREN __ l:[0-9]+ __ RPAREN { return { dataType: t, length: parseInt(l.join(''), 10), parentheses: true }; }
  / t:(KW_DATE / KW_DATETIME / KW_TIME / KW_TIMESTAMP) { return { dataType: t }; }

// cannery: BYTES with or without a length (the stock rule wanted one and returned it as the type),
// BOOLEAN beside BOOL, JSON and INTERVAL.
bool_byte_geography_type
  = t:KW_BYTES __ LPAREN __ l:[0-9]+ __ RPAREN { return { dataType: t, length: parseInt(l.join(''), 10), parentheses: true }; }
  / t:(KW_BYTES / KW_BOOLEAN / KW_BOOL / KW_GEOGRAPHY / KW_JSON / KW_INTERVAL) { return { dataType: t }; }

array_type
  = t:KW_ARRAY __ LANGLE __ a:data_type_list __ RANGLE {
    return {
      dataType: t,
      definition: a,
      anglebracket: true
    }
  }

// cannery: RANGE<T>, of the three element types BigQuery has ranges of.
range_type
  = "RANGE"i __ LANGLE __ t:(KW_DATETIME / KW_DATE / KW_TIMESTAMP) __ RANGLE {
    return {
      dataType: 'RANGE',
      definition: [{ field_name: null, field_type: { dataType: t } }],
      anglebracket: true
    }
  }

struct_type
  = t:KW_STRUCT __ LANGLE __ a:data_type_list __ RANGLE {
    return {
      dataType: t,
      definition: a,
      anglebracket: true
    }
  }
