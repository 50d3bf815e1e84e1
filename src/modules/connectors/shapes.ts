import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { Custom } from "../teams/shapes.js";

export const ConnectorSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    info: OpenObject({
      type: Type.String({ minLength: 1, description: "What the connector does, e.g. postgres-access." }),
      description: Type.Optional(Type.String()),
      connectorVersion: Type.Optional(Type.String()),
    }),
    state: Type.Optional(
      OpenObject(
        { lastEventId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Id of the last feed event the connector processed." })) },
        { description: "Whatever the connector keeps between runs; lastEventId is its feed position." },
      ),
    ),
    custom: Type.Optional(Custom),
  },
  { title: "Connector" },
);

export type Connector = Static<typeof ConnectorSchema> & { id: string };
