//! Our additions to the grammar crates' bundled tags queries: definitions they miss (trait
//! method signatures, enums, records, constructors, namespaces, type aliases, macros) and
//! references where theirs are thin (C and C++ have none; type references everywhere).
//!
//! Capture conventions follow tree-sitter's tags: `@name` for the identifier, and
//! `@definition.<kind>` / `@reference.<kind>` for the node.

/// Rust: trait method signatures, constants and statics, `impl` blocks, type and path references,
/// calls inside macros' arguments.
pub const RUST: &str = r#"
(declaration_list
    (function_signature_item
        name: (identifier) @name) @definition.method)

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

(impl_item
    type: [
        (type_identifier) @name
        (generic_type type: (type_identifier) @name)
        (scoped_type_identifier name: (type_identifier) @name)
    ]) @definition.impl

(type_identifier) @name @reference.type

(call_expression
    function: (scoped_identifier name: (identifier) @name)) @reference.call

(scoped_identifier path: (identifier) @name) @reference.module

(use_declaration argument: (scoped_identifier name: (identifier) @name)) @reference.import

; A call inside a macro's arguments (`assert!(is_leap_year(2000))`), which the grammar leaves
; as tokens: a name followed by a parenthesised group.
(token_tree
    (identifier) @name
    .
    (token_tree)) @reference.call
"#;

/// Python: base classes, annotations, imports and decorators as references.
pub const PYTHON: &str = r#"
(class_definition
    superclasses: (argument_list [(identifier) @name (attribute attribute: (identifier) @name)])) @reference.class

(type (identifier) @name) @reference.type

(import_from_statement name: (dotted_name (identifier) @name)) @reference.import

(decorator (identifier) @name) @reference.call
"#;

/// JavaScript and TypeScript alike.
pub const JAVASCRIPT: &str = r#"
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.class
"#;

/// JavaScript only (TypeScript names these nodes differently).
pub const JAVASCRIPT_ONLY: &str = r#"
(class_heritage (identifier) @name) @reference.class

(field_definition
    property: (property_identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.method
"#;

/// TypeScript beyond its bundled query (which must be combined with JavaScript's).
pub const TYPESCRIPT: &str = r#"
(extends_clause value: (identifier) @name) @reference.class

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(public_field_definition
    name: (property_identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.method

(type_identifier) @name @reference.type
"#;

/// Go: interface methods.
pub const GO: &str = r#"
(method_elem name: (field_identifier) @name) @definition.method
"#;

/// Java: enums, records, constructors, annotation types, type references.
pub const JAVA: &str = r#"
(enum_declaration name: (identifier) @name) @definition.enum

(record_declaration name: (identifier) @name) @definition.class

(constructor_declaration name: (identifier) @name) @definition.method

(annotation_type_declaration name: (identifier) @name) @definition.interface

(type_identifier) @name @reference.type
"#;

/// C: function-like macros, and references (the bundled query has none).
pub const C: &str = r#"
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call

(call_expression
    function: (field_expression field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type
"#;

/// C++: namespaces, function-like macros, and references (the bundled query has none).
pub const CPP: &str = r#"
(namespace_definition name: (namespace_identifier) @name) @definition.module

(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call

(call_expression
    function: (field_expression field: (field_identifier) @name)) @reference.call

(call_expression
    function: (qualified_identifier name: (identifier) @name)) @reference.call

(type_identifier) @name @reference.type
"#;
