import { calmSuite } from "@/test/acceptance/calm";

calmSuite("cloudwatch");
