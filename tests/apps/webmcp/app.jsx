/** @jsxRuntime automatic @jsxImportSource react */
// A shopping cart in React whose tools are registered by the `usewebmcp` hooks from npm, as a
// WebMCP site writes it; it knows nothing of aim.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";
import { useWebMCP } from "usewebmcp";

initializeWebMCPPolyfill();

function Cart() {
  const [items, setItems] = useState([]);
  const [archiving, setArchiving] = useState(true);
  useWebMCP({
    name: "add_item",
    description: "Put an item in the cart",
    inputSchema: {
      type: "object",
      properties: { item: { type: "string", description: "The item's name" } },
      required: ["item"],
    },
    execute: ({ item }) => {
      setItems((now) => [...now, item]);
      return { added: item };
    },
  });
  useWebMCP({
    name: "add_items",
    description: "Put several items in the cart at once",
    inputSchema: {
      type: "object",
      properties: {
        items: { type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true },
      },
      required: ["items"],
    },
    execute: ({ items: added }) => {
      setItems((now) => [...now, ...added]);
      return { added };
    },
  });
  useWebMCP({
    name: "list_items",
    description: "The items in the cart",
    annotations: { readOnlyHint: true },
    execute: () => ({ items }),
  });
  useWebMCP({
    name: "empty_cart",
    description: "Remove every item from the cart",
    annotations: { destructiveHint: true },
    enabled: archiving,
    execute: () => {
      setItems([]);
      return "emptied";
    },
  });
  return (
    <main>
      <h1>Cart</h1>
      <ul id="items">{items.map((item) => <li key={item}>{item}</li>)}</ul>
      <button type="button" id="lock" onClick={() => setArchiving(false)}>Lock the cart</button>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Cart />);
