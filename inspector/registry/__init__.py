"""The town's registry: holders, drivers, vehicles, permits, licences, insurance, stands;
their identifiers (CPF, CNPJ, plate, RG), the values forms give, and the law's limits each
record breaks."""
