//! Prints what is generated from the launch configuration's key table
//! (`dapper_core::schema`): with no argument, the JSON of package.json's
//! `configurationAttributes`; with `markdown` and `attach-markdown`, the launch and
//! attach option tables of docs/options.md; with `names`, the keys in the tables' order.
//! `node scripts/schema.mjs` runs this and writes both into place.

use std::process::ExitCode;

fn main() -> ExitCode {
    let what: Vec<String> = std::env::args().skip(1).collect();
    match what
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["json"] => {
            match serde_json::to_string_pretty(&dapper_core::schema::configuration_attributes()) {
                Ok(text) => println!("{text}"),
                Err(error) => {
                    eprintln!("schema: could not write the JSON: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
        ["markdown"] => print!("{}", dapper_core::schema::options_markdown()),
        ["attach-markdown"] => print!("{}", dapper_core::schema::attach_options_markdown()),
        // The keys in the table's order, which JSON objects here do not keep.
        ["names"] => {
            for name in dapper_core::schema::key_names() {
                println!("{name}");
            }
        }
        _ => {
            eprintln!("usage: cargo run -q -p dapper-core --example schema [json|markdown|attach-markdown|names]");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
