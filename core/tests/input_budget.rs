//! Many clients each halfway through a large message cannot fill the engine's memory:
//! past the shared budget the client whose message would overdraw it is refused and
//! closed, with an error it can read, and every other client, and the
//! ones that send only ordinary messages above all, goes on.

use dapper_core::dap::framing;
use dapper_core::input_budget::{self, SHARED_BYTES, SMALL_BYTES};
use dapper_core::{Bytes, ClientId, Engine, Framing, Input, Output};

mod common;
use common::engine;

fn open(engine: &mut Engine, client: ClientId) {
    engine.handle(Input::ClientOpened {
        client,
        framing: Framing::ContentLength,
        transport: None,
    });
}

fn bytes(engine: &mut Engine, client: ClientId, data: &[u8]) -> Vec<Output> {
    engine.handle(Input::ClientBytes {
        client,
        data: Bytes(data.to_vec()),
    })
}

fn closes(outputs: &[Output], client: ClientId) -> bool {
    outputs
        .iter()
        .any(|output| matches!(output, Output::CloseClient { client: closed } if *closed == client))
}

/// The text of the bytes written to `client`.
fn written(outputs: &[Output], client: ClientId) -> String {
    outputs
        .iter()
        .filter_map(|output| match output {
            Output::WriteToClient { client: to, data } if *to == client => {
                Some(String::from_utf8_lossy(&data.0).into_owned())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn partial_large_bodies_of_many_clients_are_refused_past_the_shared_budget() {
    let mut engine = engine();
    const BODY: usize = 60_000_000;
    const CHUNK: usize = 4 << 20;
    let header = format!("Content-Length: {BODY}\r\n\r\n");
    let chunk = vec![b'x'; CHUNK];
    let clients: Vec<ClientId> = (1..=70).map(ClientId).collect();
    let mut refused = Vec::new();
    for &client in &clients {
        open(&mut engine, client);
        bytes(&mut engine, client, header.as_bytes());
        // All of the body but its last chunk: the message stays unfinished.
        for _ in 0..BODY / CHUNK {
            let outputs = bytes(&mut engine, client, &chunk);
            if closes(&outputs, client) {
                let text = written(&outputs, client);
                assert!(
                    text.contains("Dapper cannot read the client's messages any more")
                        && text.contains("unfinished large messages"),
                    "client {client} was told {text}"
                );
                refused.push(client);
                break;
            }
        }
        assert!(input_budget::drawn() <= SHARED_BYTES);
    }
    // The budget holds four such bodies, and nobody else is refused for them.
    let held = SHARED_BYTES / (BODY / CHUNK * CHUNK - SMALL_BYTES);
    assert_eq!(refused, clients[held..].to_vec());

    // A client sending ordinary messages is served all the while.
    let ordinary = ClientId(100);
    open(&mut engine, ordinary);
    let request = br#"{"seq":1,"type":"request","command":"initialize","arguments":{}}"#;
    let outputs = bytes(&mut engine, ordinary, &framing::encode(request));
    assert!(
        written(&outputs, ordinary).contains(r#""command":"initialize""#),
        "{outputs:?}"
    );

    // The clients that go give their share back, and a new large message fits again.
    for &client in &clients {
        engine.handle(Input::ClientClosed { client });
    }
    assert_eq!(input_budget::drawn(), 0);
    let large = ClientId(101);
    open(&mut engine, large);
    let body = format!(
        r#"{{"seq":1,"type":"request","command":"initialize","arguments":{{"x":"{}"}}}}"#,
        "y".repeat(BODY)
    );
    let outputs = bytes(&mut engine, large, &framing::encode(body.as_bytes()));
    assert!(written(&outputs, large).contains(r#""command":"initialize""#));
    assert_eq!(input_budget::drawn(), 0);
}
