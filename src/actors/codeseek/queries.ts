// Tree-sitter queries per grammar: declarations (with their body, for the signature), call sites and imports.
// Capture names are the contract with extract.ts: `decl.<kind>` + `name` (+ `body`), `callee` (+ `recv`),
// `import` (+ `import.stmt` / `import.alias`: the bindings, bindings.ts), `tvar` / `tfield` (+ `tobj`, Python's `self`)
// with `ttype`: a name whose type the syntax states (facts.ts `TypedName`).

const TS_COMMON = `
(function_declaration name: (identifier) @name body: (_) @body) @decl.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @decl.function
(method_definition name: (_) @name body: (_) @body) @decl.method
(variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @decl.function
(call_expression function: (identifier) @callee)
(call_expression function: (member_expression object: (_) @recv property: (property_identifier) @callee))
(new_expression constructor: (identifier) @callee)
(import_statement source: (string (string_fragment) @import)) @import.stmt
(export_statement source: (string (string_fragment) @import)) @import.stmt
(call_expression function: (import) arguments: (arguments (string (string_fragment) @import)))
(variable_declarator name: (identifier) @tvar value: (new_expression constructor: (identifier) @ttype))
`;

const TS_ONLY = `
(enum_declaration name: (identifier) @name body: (_) @body) @decl.enum
(class_declaration name: (type_identifier) @name body: (_) @body) @decl.class
(abstract_class_declaration name: (type_identifier) @name body: (_) @body) @decl.class
(interface_declaration name: (type_identifier) @name body: (_) @body) @decl.interface
(type_alias_declaration name: (type_identifier) @name) @decl.type
(function_signature name: (identifier) @name) @decl.function
(abstract_method_signature name: (_) @name) @decl.method
(variable_declarator name: (identifier) @tvar type: (type_annotation (type_identifier) @ttype))
(required_parameter pattern: (identifier) @tvar type: (type_annotation (type_identifier) @ttype))
(optional_parameter pattern: (identifier) @tvar type: (type_annotation (type_identifier) @ttype))
(required_parameter (accessibility_modifier) pattern: (identifier) @tfield type: (type_annotation (type_identifier) @ttype))
(public_field_definition name: (property_identifier) @tfield type: (type_annotation (type_identifier) @ttype))
(public_field_definition name: (property_identifier) @tfield value: (new_expression constructor: (identifier) @ttype))
`;

const JS_ONLY = `
(class_declaration name: (identifier) @name body: (_) @body) @decl.class
`;

const PYTHON = `
(function_definition name: (identifier) @name body: (_) @body) @decl.function
(class_definition name: (identifier) @name body: (_) @body) @decl.class
(call function: (identifier) @callee)
(call function: (attribute object: (_) @recv attribute: (identifier) @callee))
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import) @import.stmt
(assignment left: (identifier) @tvar right: (call function: (identifier) @ttype))
(assignment left: (identifier) @tvar type: (type (identifier) @ttype))
(assignment left: (attribute object: (identifier) @tobj attribute: (identifier) @tfield) right: (call function: (identifier) @ttype))
(typed_parameter (identifier) @tvar type: (type (identifier) @ttype))
(typed_default_parameter name: (identifier) @tvar type: (type (identifier) @ttype))
`;

const GO = `
(function_declaration name: (identifier) @name body: (_) @body) @decl.function
(method_declaration name: (field_identifier) @name body: (_) @body) @decl.method
(type_spec name: (type_identifier) @name type: (struct_type) @body) @decl.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @decl.interface
(call_expression function: (identifier) @callee)
(call_expression function: (selector_expression operand: (_) @recv field: (field_identifier) @callee))
(import_spec name: (_)? @import.alias path: (interpreted_string_literal) @import)
(parameter_declaration name: (identifier) @tvar type: [(type_identifier) @ttype (pointer_type (type_identifier) @ttype)])
(var_spec name: (identifier) @tvar type: [(type_identifier) @ttype (pointer_type (type_identifier) @ttype)])
(short_var_declaration left: (expression_list . (identifier) @tvar .) right: (expression_list . [(composite_literal type: (type_identifier) @ttype) (unary_expression operand: (composite_literal type: (type_identifier) @ttype))] .))
`;

export type LangId = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go';

export const QUERIES: Readonly<Record<LangId, string>> = {
  typescript: TS_COMMON + TS_ONLY,
  tsx: TS_COMMON + TS_ONLY,
  javascript: TS_COMMON + JS_ONLY,
  python: PYTHON,
  go: GO,
};

/** Where each grammar's wasm is, as a package specifier resolved from yagent's own package.json. */
export const GRAMMAR_FILES: Readonly<Record<LangId, string>> = {
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
};

const BY_EXT: Readonly<Record<string, LangId>> = {
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'tsx',
  '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascript',
  '.py': 'python', '.pyi': 'python', '.go': 'go',
};

/** The grammar of a file by its extension (`.d.ts` is TypeScript too); null = not indexed. */
export function langOf(path: string): LangId | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  return BY_EXT[path.slice(dot).toLowerCase()] ?? null;
}
